package org.tfd;

/** UNAVAILABLE: a peer or service could not be reached; retrying may help. */
public final class UnavailableException extends TfdException {
  private static final long serialVersionUID = 1L;

  public UnavailableException(String message) {
    super(Code.UNAVAILABLE, message);
  }
}
