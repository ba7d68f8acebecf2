package org.tfd;

/** PERMISSION_DENIED or UNAUTHENTICATED: the caller may not do this. */
public final class PermissionDeniedException extends TfdException {
  private static final long serialVersionUID = 1L;

  public PermissionDeniedException(Code code, String message) {
    super(code, message);
  }
}
