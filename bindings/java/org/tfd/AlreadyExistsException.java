package org.tfd;

/** ALREADY_EXISTS: something that must be new exists already. */
public final class AlreadyExistsException extends TfdException {
  private static final long serialVersionUID = 1L;

  public AlreadyExistsException(String message) {
    super(Code.ALREADY_EXISTS, message);
  }
}
