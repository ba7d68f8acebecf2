package org.tfd;

/** RESOURCE_EXHAUSTED: out of memory, disk space or another resource. */
public final class ResourceExhaustedException extends TfdException {
  private static final long serialVersionUID = 1L;

  public ResourceExhaustedException(String message) {
    super(Code.RESOURCE_EXHAUSTED, message);
  }
}
