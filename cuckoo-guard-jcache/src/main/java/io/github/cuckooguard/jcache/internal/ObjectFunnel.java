package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.util.UUID;

/**
 * The default funnel for JCache keys of any type. Equal keys must funnel equal bytes (else a
 * present key could be reported absent), so every branch depends only on what {@code equals}
 * compares:
 *
 * <ul>
 *   <li>{@code String}, {@code Long}, {@code Integer}, {@code UUID}: their full value, so distinct
 *       keys collide only by chance;
 *   <li>{@code byte[]}: its content (content-equal arrays share a fingerprint, which is right for
 *       providers that compare serialized keys and only a false positive for the others);
 *   <li>anything else: {@code hashCode()}, which {@code equals} must agree with. Only 32 bits, so
 *       keys with equal hash codes share a fingerprint: more false positives, never a false
 *       negative. A key type whose {@code equals} differs from the provider's key equality (a class
 *       without {@code equals} on a provider that compares serialized bytes) needs its own funnel.
 * </ul>
 *
 * <p>The bytes depend on {@code hashCode()} for other types, which may differ between processes;
 * guards are never exchanged between processes, so that is harmless here.
 */
public enum ObjectFunnel implements Funnel<Object> {
  INSTANCE;

  @Override
  public void funnel(Object key, KeySink sink) {
    if (key instanceof String s) {
      sink.putString(s);
    } else if (key instanceof Long l) {
      sink.putLong(l);
    } else if (key instanceof Integer i) {
      sink.putInt(i);
    } else if (key instanceof UUID u) {
      sink.putUUID(u);
    } else if (key instanceof byte[] bytes) {
      sink.putByteArray(bytes);
    } else {
      sink.putInt(key.hashCode());
    }
  }

  @Override
  public String id() {
    return "jcache-object-v1";
  }
}
