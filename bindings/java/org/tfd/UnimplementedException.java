package org.tfd;

/** UNIMPLEMENTED: tfd does not support this (yet). */
public final class UnimplementedException extends TfdException {
  private static final long serialVersionUID = 1L;

  public UnimplementedException(String message) {
    super(Code.UNIMPLEMENTED, message);
  }
}
