package io.github.cuckooguard.boot.clusterapp;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A class-based repository guarded by {@code notes}, over one in-memory store that every context of
 * the JVM shares (as the application instances of a service share one database).
 */
@CuckooGuarded(name = "notes", keySource = "noteKeys")
public class NoteStore {

  /** The store every context writes and reads. */
  public static final Map<Long, String> SHARED = new ConcurrentHashMap<>();

  /** Adds a note. */
  @GuardedAdd(key = "#id")
  public void insert(long id, String text) {
    SHARED.put(id, text);
  }

  /** The note, or null. */
  @GuardedFind
  public @Nullable String find(long id) {
    return SHARED.get(id);
  }
}
