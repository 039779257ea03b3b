package io.github.cuckooguard.internal;

import java.security.SecureRandom;

/**
 * What binds the parts of one dump together: a random id of the dumped state (one instance after
 * one number of writes, see {@link FilterCore}), written into the header and into every chunk, and
 * the digest of the whole body ({@link DumpFormat#digest}), written into the header. A reader
 * checks the id of every chunk against the header's and, once the body is in, its digest: a header
 * of one dump with the body of another, or a chunk of another dump, is refused even when seeds,
 * write counts and item counts agree.
 *
 * @param id random, drawn when the state was first dumped
 * @param digest XXH3-64 of the body's words
 */
record DumpIdentity(long id, long digest) {

  private static final SecureRandom IDS = new SecureRandom();

  static long randomId() {
    return IDS.nextLong();
  }
}
