package org.tfd;

/** UNKNOWN, INTERNAL or DATA_LOSS: a bug, or corrupt data. */
public final class InternalException extends TfdException {
  private static final long serialVersionUID = 1L;

  public InternalException(Code code, String message) {
    super(code, message);
  }
}
