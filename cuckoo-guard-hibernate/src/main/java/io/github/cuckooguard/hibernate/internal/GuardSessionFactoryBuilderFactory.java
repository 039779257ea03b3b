package io.github.cuckooguard.hibernate.internal;

import java.util.function.Supplier;
import org.hibernate.Interceptor;
import org.hibernate.SessionFactory;
import org.hibernate.boot.SessionFactoryBuilder;
import org.hibernate.boot.spi.AbstractDelegatingSessionFactoryBuilderImplementor;
import org.hibernate.boot.spi.MetadataImplementor;
import org.hibernate.boot.spi.SessionFactoryBuilderFactory;
import org.hibernate.boot.spi.SessionFactoryBuilderImplementor;
import org.hibernate.boot.spi.SessionFactoryOptions;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.jspecify.annotations.Nullable;

/**
 * Adds the guard's {@code StatementInspector} and {@code Interceptor} to a session factory that
 * guards an entity, keeping the application's own (which they call); discovered by Hibernate
 * through {@code META-INF/services/org.hibernate.boot.spi.SessionFactoryBuilderFactory}.
 *
 * <pre>
 * Why here and not in the Integrator: an Integrator runs inside the SessionFactory constructor,
 * when the options are final for the public SPI; changing them there needs Hibernate's internal
 * SessionFactoryOptionsBuilder. A SessionFactoryBuilderFactory (org.hibernate.boot.spi, the same
 * in 6.6 and 7.x) wraps the builder instead; its build() runs after the application (or JPA's
 * bootstrap, or Spring) has applied its own inspector and interceptor, reads them from
 * buildSessionFactoryOptions(), and applies wrappers through the public builder methods. The
 * registry those wrappers report to is attached later by the Integrator (BulkHooks).
 *
 * Interceptors: Hibernate uses the factory-scoped one, or if there is none (null or Hibernate's
 * EmptyInterceptor) one per session from the "stateless" supplier. The wrapper takes the same
 * place: around the supplier's interceptors when only a supplier is set, else factory-scoped.
 *
 * Limits: Hibernate allows one active SessionFactoryBuilderFactory; this one is active (returns
 * a builder) only for factories that guard an entity, and another library's active one beside
 * it fails the build with Hibernate's "Multiple active SessionFactoryBuilderFactory" error. A
 * factory built without a SessionFactoryBuilder gets no wrappers: the Integrator then warns that
 * bulk statements are not detected.
 * </pre>
 *
 * <p>Not API: instantiated by Hibernate's service loader. Thread safety: stateless.
 */
public final class GuardSessionFactoryBuilderFactory implements SessionFactoryBuilderFactory {

  /** The class of Hibernate's default "no interceptor", compared by name: it is internal. */
  private static final String EMPTY_INTERCEPTOR = "org.hibernate.internal.EmptyInterceptor";

  /** Called by the service loader. */
  public GuardSessionFactoryBuilderFactory() {}

  @Override
  public @Nullable SessionFactoryBuilder getSessionFactoryBuilder(
      MetadataImplementor metadata, SessionFactoryBuilderImplementor defaultBuilder) {
    return guardsAnEntity(metadata) ? new HookingBuilder(defaultBuilder) : null;
  }

  /** Whether the integrator will guard an entity; true for bad settings, which it reports. */
  private static boolean guardsAnEntity(MetadataImplementor metadata) {
    try {
      GuardSettings settings =
          GuardSettings.from(
              metadata
                  .getMetadataBuildingOptions()
                  .getServiceRegistry()
                  .requireService(ConfigurationService.class)
                  .getSettings());
      return settings.enabled()
          && !CuckooGuardIntegrator.guardedEntities(metadata, settings).isEmpty();
    } catch (RuntimeException invalid) {
      return true;
    }
  }

  private static final class HookingBuilder
      extends AbstractDelegatingSessionFactoryBuilderImplementor<HookingBuilder> {

    HookingBuilder(SessionFactoryBuilderImplementor delegate) {
      super(delegate);
    }

    @Override
    protected HookingBuilder getThis() {
      return this;
    }

    @Override
    public SessionFactory build() {
      SessionFactoryBuilderImplementor builder = delegate();
      SessionFactoryOptions options = builder.buildSessionFactoryOptions();
      BulkHooks hooks = new BulkHooks();
      builder.applyStatementInspector(
          new GuardStatementInspector(options.getStatementInspector(), hooks));
      Interceptor factoryScoped = options.getInterceptor();
      Supplier<? extends Interceptor> sessionScoped =
          options.getStatelessInterceptorImplementorSupplier();
      boolean noFactoryScoped =
          factoryScoped == null || factoryScoped.getClass().getName().equals(EMPTY_INTERCEPTOR);
      if (noFactoryScoped && sessionScoped != null) {
        builder.applyStatelessInterceptor(() -> new GuardInterceptor(sessionScoped.get(), hooks));
      } else {
        builder.applyInterceptor(
            new GuardInterceptor(noFactoryScoped ? null : factoryScoped, hooks));
      }
      return builder.build();
    }
  }
}
