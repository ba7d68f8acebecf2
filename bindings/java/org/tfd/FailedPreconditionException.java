package org.tfd;

/** FAILED_PRECONDITION or ABORTED: the object is not in a state that allows the call (for example, it is closed). */
public final class FailedPreconditionException extends TfdException {
  private static final long serialVersionUID = 1L;

  public FailedPreconditionException(Code code, String message) {
    super(code, message);
  }
}
