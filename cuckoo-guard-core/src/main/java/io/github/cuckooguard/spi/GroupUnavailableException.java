package io.github.cuckooguard.spi;

/**
 * The group could not make a write safe in time (a member neither acknowledged nor could be shown
 * to have stopped answering "definitely absent"). The write must not proceed; the local enter has
 * been aborted.
 */
public class GroupUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** With a message that says which member and why. */
  public GroupUnavailableException(String message) {
    super(message);
  }
}
