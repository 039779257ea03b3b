package io.github.cuckooguard.boot.clusterapp;

import io.github.cuckooguard.KeySource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The guarded beans of the cluster property tests: {@link NoteStore} and the key source of its
 * guard. No {@code @EnableCuckooGuard}: the starter applies it.
 */
@Configuration(proxyBeanMethods = false)
@Import(NoteStore.class)
public class NoteApp {

  /** Every key of the shared store. */
  @Bean
  public KeySource<Long> noteKeys() {
    return action -> NoteStore.SHARED.keySet().forEach(action);
  }
}
