package io.github.cuckooguard.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;

/** Boot 3's hook for {@link AotProcessing#postProcess}: no entity guard during AOT processing. */
final class Boot3AotProcessingEnvironment implements EnvironmentPostProcessor {

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    AotProcessing.postProcess(environment);
  }
}
