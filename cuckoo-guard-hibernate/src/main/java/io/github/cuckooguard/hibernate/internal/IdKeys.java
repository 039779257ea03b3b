package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.metamodel.mapping.AttributeMapping;
import org.hibernate.metamodel.mapping.BasicEntityIdentifierMapping;
import org.hibernate.metamodel.mapping.CompositeIdentifierMapping;
import org.hibernate.metamodel.mapping.EmbeddableMappingType;
import org.hibernate.metamodel.mapping.EmbeddableValuedModelPart;
import org.hibernate.metamodel.mapping.EntityAssociationMapping;
import org.hibernate.metamodel.mapping.EntityIdentifierMapping;
import org.jspecify.annotations.Nullable;

/**
 * Turns an entity id into the key a guard stores: a canonical value that is equal for every two ids
 * the database treats as the same row, and the {@link Funnel} that hashes it.
 *
 * <p>Ids are broken down into their JDBC values (an {@code @EmbeddedId} or {@code @IdClass} into
 * its columns, a converted id into its column value) and each value is normalised so that the
 * mapping is many-to-one towards the database's notion of equality: integral numbers become {@code
 * long}, a {@link BigDecimal} loses trailing zeros, and strings are folded (accents removed, case
 * folded, trailing spaces dropped) so that case- and accent-insensitive collations and PAD SPACE
 * comparison cannot make two "different" keys hit one row. Folding only merges keys, which costs
 * false positives, never false negatives.
 */
final class IdKeys implements Funnel<Object> {

  /** Stands for a null JDBC value inside a composite id. */
  private static final Object NULL = new Object();

  private final EntityIdentifierMapping mapping;
  private final boolean basicWithoutConversion;
  private final boolean containsAssociation;
  private final String funnelId;

  IdKeys(EntityIdentifierMapping mapping, String rootEntityName) {
    this.mapping = mapping;
    this.basicWithoutConversion =
        mapping instanceof BasicEntityIdentifierMapping basic
            && basic.getJdbcMapping().getValueConverter() == null;
    this.containsAssociation =
        mapping instanceof CompositeIdentifierMapping composite
            && containsAssociation(composite.getPartMappingType());
    this.funnelId = "hibernate-id:" + rootEntityName;
  }

  /** Whether {@code id} has the id type of the entity (Hibernate rejects other types anyway). */
  boolean accepts(Object id) {
    return mapping.getJavaType().isInstance(id);
  }

  /**
   * Whether {@link #keyOf} can run without a session: false for a composite id that contains an
   * association ({@code @IdClass} with an {@code @Id @ManyToOne}), whose breakdown may look the
   * associated entity up in the session.
   */
  boolean keyableWithoutSession() {
    return !containsAssociation;
  }

  private static boolean containsAssociation(EmbeddableMappingType type) {
    for (int i = 0; i < type.getNumberOfAttributeMappings(); i++) {
      AttributeMapping attribute = type.getAttributeMapping(i);
      if (attribute instanceof EntityAssociationMapping
          || attribute instanceof EmbeddableValuedModelPart embedded
              && containsAssociation(embedded.getEmbeddableTypeDescriptor())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The canonical key of {@code id}.
   *
   * @param session used by Hibernate to read ids of entities inside derived (composite) ids
   */
  Object keyOf(Object id, @Nullable SharedSessionContractImplementor session) {
    if (basicWithoutConversion) {
      return normalize(id);
    }
    List<Object> parts = new ArrayList<>(4);
    mapping.breakDownJdbcValues(
        id,
        (index, value, selectable) -> parts.add(value == null ? NULL : normalize(value)),
        session);
    return parts.size() == 1 ? parts.get(0) : List.copyOf(parts);
  }

  static Object normalize(Object value) {
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof CharSequence || value instanceof Character) {
      return fold(value.toString());
    }
    if (value instanceof BigInteger big) {
      return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }
    if (value instanceof BigDecimal decimal) {
      BigDecimal stripped = decimal.signum() == 0 ? BigDecimal.ZERO : decimal.stripTrailingZeros();
      if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() < 19) {
        return stripped.longValueExact();
      }
      return stripped;
    }
    if (value instanceof byte[] bytes) {
      return new Bytes(bytes.clone());
    }
    return value;
  }

  private static String fold(String text) {
    int end = text.length();
    while (end > 0 && text.charAt(end - 1) == ' ') {
      end--;
    }
    String trimmed = text.substring(0, end);
    boolean ascii = true;
    for (int i = 0; i < trimmed.length() && ascii; i++) {
      ascii = trimmed.charAt(i) < 0x80;
    }
    if (!ascii) {
      trimmed = Normalizer.normalize(trimmed, Normalizer.Form.NFKD).replaceAll("\\p{M}+", "");
    }
    return trimmed.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
  }

  @Override
  public void funnel(Object key, KeySink sink) {
    if (key instanceof List<?> parts) {
      sink.putByte((byte) 1).putInt(parts.size());
      for (Object part : parts) {
        funnelPart(part, sink);
      }
    } else {
      funnelPart(key, sink);
    }
  }

  private static void funnelPart(Object part, KeySink sink) {
    if (part instanceof Long value) {
      sink.putByte((byte) 2).putLong(value);
    } else if (part instanceof String text) {
      byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
      sink.putByte((byte) 3).putInt(utf8.length).putBytes(utf8);
    } else if (part instanceof UUID uuid) {
      sink.putByte((byte) 4)
          .putLong(uuid.getMostSignificantBits())
          .putLong(uuid.getLeastSignificantBits());
    } else if (part instanceof Bytes bytes) {
      sink.putByte((byte) 5).putInt(bytes.value.length).putBytes(bytes.value);
    } else if (part == NULL) {
      sink.putByte((byte) 6);
    } else {
      // BigInteger, BigDecimal, dates, enums and other JDBC values: their string form is
      // canonical for equal values, tagged with the type so that equal strings of different
      // types stay apart.
      byte[] type = part.getClass().getName().getBytes(StandardCharsets.UTF_8);
      byte[] text = part.toString().getBytes(StandardCharsets.UTF_8);
      sink.putByte((byte) 7).putInt(type.length).putBytes(type).putInt(text.length).putBytes(text);
    }
  }

  @Override
  public String id() {
    return funnelId;
  }

  /** A byte array id with value equality, so that it can key the pending-operation map. */
  private record Bytes(byte[] value) {
    @Override
    public boolean equals(@Nullable Object other) {
      return other instanceof Bytes bytes && Arrays.equals(value, bytes.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "Bytes" + Arrays.toString(value);
    }
  }
}
