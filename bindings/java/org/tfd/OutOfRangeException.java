package org.tfd;

/** OUT_OF_RANGE: an index or a read past the end (for example, of a dataset). */
public final class OutOfRangeException extends TfdException {
  private static final long serialVersionUID = 1L;

  public OutOfRangeException(String message) {
    super(Code.OUT_OF_RANGE, message);
  }
}
