package io.github.cuckooguard.hibernate.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.jspecify.annotations.Nullable;

/**
 * The session of an insert, delete or upsert event, on Hibernate 6.6 and 7.x alike.
 *
 * <p>Why a bridge: the source {@code event.getSession()} compiles on both lines, but not to the
 * same method. On 6.6 it is {@code AbstractEvent.getSession()} returning {@code EventSource}; on
 * 7.x the database-operation events return {@code SharedSessionContractImplementor} (they also
 * serve {@code StatelessSession}). A jar compiled against 7.x therefore fails on 6.6 with {@code
 * NoSuchMethodError PreInsertEvent.getSession()}. Here the public no-argument {@code getSession} of
 * the event's class is looked up once per class, whatever it returns; both return types are a
 * {@code SharedSessionContractImplementor}. ({@code LoadEvent.getSession()} returns {@code
 * EventSource} on both lines and needs no bridge.)
 *
 * <p>On 6.6 the events of a {@code StatelessSession} carry no session at all ({@code null}); the
 * caller must handle that ({@link MembershipListener}).
 *
 * <p>Thread safety: thread-safe (a {@link ClassValue}).
 */
final class EventSessions {

  private static final MethodType GETTER =
      MethodType.methodType(SharedSessionContractImplementor.class, Object.class);

  private static final ClassValue<MethodHandle> GET_SESSION =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> eventClass) {
          try {
            return MethodHandles.publicLookup()
                .unreflect(eventClass.getMethod("getSession"))
                .asType(GETTER);
          } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                "Cuckoo guard: "
                    + eventClass.getName()
                    + " of Hibernate "
                    + org.hibernate.Version.getVersionString()
                    + " has no public getSession() returning"
                    + " a SharedSessionContractImplementor; supported are Hibernate ORM 6.6 and 7.x",
                e);
          }
        }
      };

  private EventSessions() {}

  /**
   * The session that fired {@code event} (an insert, delete or upsert event); null for a {@code
   * StatelessSession} on Hibernate 6.6.
   */
  static @Nullable SharedSessionContractImplementor of(Object event) {
    try {
      return (SharedSessionContractImplementor)
          GET_SESSION.get(event.getClass()).invokeExact(event);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable impossible) { // getSession() declares no checked exception
      throw new IllegalStateException(impossible);
    }
  }
}
