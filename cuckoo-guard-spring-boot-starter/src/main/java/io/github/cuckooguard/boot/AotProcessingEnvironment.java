package io.github.cuckooguard.boot;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;

/** Boot 4's hook for {@link AotProcessing#postProcess}: no entity guard during AOT processing. */
final class AotProcessingEnvironment implements EnvironmentPostProcessor {

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    AotProcessing.postProcess(environment);
  }
}
