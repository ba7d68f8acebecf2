package org.tfd;

/** NOT_FOUND: a file, operation or name does not exist. */
public final class NotFoundException extends TfdException {
  private static final long serialVersionUID = 1L;

  public NotFoundException(String message) {
    super(Code.NOT_FOUND, message);
  }
}
