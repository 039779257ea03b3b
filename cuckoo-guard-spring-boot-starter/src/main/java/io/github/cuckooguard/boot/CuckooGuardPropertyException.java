package io.github.cuckooguard.boot;

/**
 * A Cuckoo Guard setting from the {@code Environment} that is unknown or has a bad value; the
 * message names the key, the value and what is accepted. Reported by the starter's failure
 * analyzer.
 */
public class CuckooGuardPropertyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** An exception with {@code message}. */
  public CuckooGuardPropertyException(String message) {
    super(message);
  }

  /** An exception with {@code message}, caused by {@code cause}. */
  public CuckooGuardPropertyException(String message, Throwable cause) {
    super(message, cause);
  }
}
