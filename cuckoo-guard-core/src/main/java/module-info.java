/**
 * Cuckoo Guard's core: the cuckoo filter ({@code CuckooFilter}, {@code LongCuckooFilter}) and the
 * key-level guard ({@code CuckooGuard}) with its write protocol and rebuild hook. Only the {@code
 * io.github.cuckooguard} package and, for group engines, {@code io.github.cuckooguard.spi} are API;
 * {@code internal} packages are not exported.
 */
module io.github.cuckooguard.core {
  requires transitive hash4j;
  requires static transitive org.jspecify;

  exports io.github.cuckooguard;
  exports io.github.cuckooguard.spi;
}
