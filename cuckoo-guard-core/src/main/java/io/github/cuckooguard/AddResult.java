package io.github.cuckooguard;

/** The outcome of an add-if-absent (RedisBloom's CF.ADDNX / CF.INSERTNX replies 1, 0, -1). */
public enum AddResult {
  /** A fingerprint was stored (reply 1). */
  ADDED,
  /** The filter already answered "might contain" for the key, so nothing was stored (reply 0). */
  ALREADY_PRESENT,
  /**
   * The filter is full and cannot grow (expansion 0, its sub-filter limit or its {@code maxBytes}
   * reached); nothing was stored and nothing was lost (reply -1).
   */
  FULL
}
