package org.tfd;

/** INVALID_ARGUMENT: a bad value, shape, type or name was passed in. */
public final class InvalidArgumentException extends TfdException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message) {
    super(Code.INVALID_ARGUMENT, message);
  }
}
