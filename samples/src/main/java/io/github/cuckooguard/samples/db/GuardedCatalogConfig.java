package io.github.cuckooguard.samples.db;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The application of {@link CatalogConfig} with the Spring guard on: {@code @EnableCuckooGuard}
 * turns the annotations of {@link ArticleRepository} into a guard bean named "articles" and the
 * advice around the repository's methods.
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@Import(CatalogConfig.class)
public class GuardedCatalogConfig {}
