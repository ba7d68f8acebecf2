package org.tfd;

/** CANCELLED or DEADLINE_EXCEEDED: the work was stopped before it finished. */
public final class CancelledException extends TfdException {
  private static final long serialVersionUID = 1L;

  public CancelledException(Code code, String message) {
    super(code, message);
  }
}
