package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.spring.datajpa.Item;
import io.github.cuckooguard.spring.datajpa.R2TicketValueRepository;
import io.github.cuckooguard.spring.datajpa.ReviewJpaConfig;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * A guard keyed by an attribute whose key expressions read a parameter named unlike it: the check
 * cannot tell the key's column, so every unannotated update is a write. Found by a reviewer: the
 * context started and 10 of 10 re-coded rows were answered "absent" by the guarded finder (main at
 * 24cd472); now the start fails naming the update.
 */
@Timeout(120)
class WritePathKeyParameterTest {

  @Configuration(proxyBeanMethods = false)
  @Import(ReviewJpaConfig.class)
  @EnableJpaRepositories(
      basePackageClasses = Item.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = R2TicketValueRepository.class))
  static class ValueParameterConfig {}

  /**
   * The guard is keyed by {@code ReviewTicket.code} (column {@code code_text}), every key
   * expression reads a parameter named {@code value}: the check's key names are {@code value},
   * {@code number}, {@code ticket_no}, {@code id}, so {@code update review_ticket set code_text =
   * :value} passes as key-preserving. 10 tickets inserted through the guarded insert, then re-coded
   * (committed); the guarded finder of the new code must find every committed row. Seen on main
   * 24cd472: context starts, 10 of 10 re-coded rows answered "absent" (Optional.empty) while the
   * row is committed.
   */
  @Test
  void keyParameterNamedUnlikeItsAttributeMakesEveryUpdateAWrite() {
    assertThatThrownBy(() -> Contexts.start(H2.newUrl(), ValueParameterConfig.class).close())
        .hasMessageContaining("does not follow")
        .hasMessageContaining("R2TicketValueRepository.recode(long, String)")
        .hasMessageContaining("its key parameter 'value' is named like no attribute");
  }
}
