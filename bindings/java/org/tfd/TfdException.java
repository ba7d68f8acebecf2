package org.tfd;

/**
 * An error reported by tfd, carrying the C API's status code.
 *
 * <p>Each family of codes has its own subclass (InvalidArgumentException,
 * NotFoundException, ...), so callers catch what they can handle; codes
 * without a family of their own (UNKNOWN, INTERNAL, DATA_LOSS) are an
 * InternalException. {@link #forCode} is the one place that maps codes to
 * classes.
 */
public class TfdException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Code code;

  protected TfdException(Code code, String message) {
    super(message);
    this.code = code;
  }

  /** The status code the C API returned. */
  public Code code() {
    return code;
  }

  /** The exception for a non-OK status; also called by the JNI glue. */
  public static TfdException forCode(int value, String message) {
    Code code = Code.fromValue(value);
    switch (code) {
      case INVALID_ARGUMENT:
        return new InvalidArgumentException(message);
      case NOT_FOUND:
        return new NotFoundException(message);
      case ALREADY_EXISTS:
        return new AlreadyExistsException(message);
      case PERMISSION_DENIED:
      case UNAUTHENTICATED:
        return new PermissionDeniedException(code, message);
      case RESOURCE_EXHAUSTED:
        return new ResourceExhaustedException(message);
      case FAILED_PRECONDITION:
      case ABORTED:
        return new FailedPreconditionException(code, message);
      case OUT_OF_RANGE:
        return new OutOfRangeException(message);
      case UNIMPLEMENTED:
        return new UnimplementedException(message);
      case CANCELLED:
      case DEADLINE_EXCEEDED:
        return new CancelledException(code, message);
      case UNAVAILABLE:
        return new UnavailableException(message);
      case OK:
        return new InternalException(
            Code.INTERNAL, "an OK status was reported as an error: " + message);
      default:
        return new InternalException(code, message);
    }
  }
}
