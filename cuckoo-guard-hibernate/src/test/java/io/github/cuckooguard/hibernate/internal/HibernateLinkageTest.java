package io.github.cuckooguard.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.hibernate.Version;
import org.junit.jupiter.api.Test;

/**
 * Every Hibernate class, method and field the adapter's compiled classes refer to exists, with the
 * same descriptor, in the Hibernate ORM on the test class path.
 *
 * <p>The adapter is compiled once, against the build's Hibernate 7.x, and must also link on 6.6: a
 * source that compiles against both can still call a method that only one has (a changed return
 * type is a different method to the JVM: {@code PreInsertEvent.getSession()} returns {@code
 * EventSource} on 6.6). In the cuckoo-guard-hibernate module this runs against 7.x; in
 * cuckoo-guard-hibernate-h66-tests, against 6.6, where it reads the very classes of the
 * cuckoo-guard-hibernate jar. Resolution follows the JVM's: the owner, its superclasses, then its
 * superinterfaces.
 */
class HibernateLinkageTest {

  /** References that may be missing: never executed on a Hibernate line that lacks them. */
  private static final Set<String> ONLY_ON_7 =
      Set.of(
          // 7.x merge callbacks, delegated to the application's interceptor; 6.6 never calls them
          "org/hibernate/Interceptor.preMerge:(Ljava/lang/Object;[Ljava/lang/Object;[Ljava/lang/String;[Lorg/hibernate/type/Type;)V",
          "org/hibernate/Interceptor.postMerge:(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/Object;[Ljava/lang/Object;[Ljava/lang/Object;[Ljava/lang/String;[Lorg/hibernate/type/Type;)V");

  @Test
  void everyHibernateMemberTheAdapterUsesLinksOnThisHibernate() throws Exception {
    Set<String> references = new TreeSet<>();
    for (Path classFile : adapterClassFiles()) {
      try (InputStream in = Files.newInputStream(classFile)) {
        references.addAll(hibernateReferences(in));
      }
    }
    assertThat(references).as("references read").hasSizeGreaterThan(50);
    List<String> unresolved = new ArrayList<>();
    for (String reference : references) {
      if (!ONLY_ON_7.contains(reference) && !resolves(reference)) {
        unresolved.add(reference);
      }
    }
    assertThat(unresolved)
        .as(
            "Hibernate members used by cuckoo-guard-hibernate but missing in Hibernate "
                + Version.getVersionString())
        .isEmpty();
  }

  private static List<Path> adapterClassFiles() throws IOException, URISyntaxException {
    Path location =
        Path.of(
            CuckooGuardIntegrator.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    Path root =
        Files.isDirectory(location)
            ? location
            : java.nio.file.FileSystems.newFileSystem(location).getPath("/");
    try (Stream<Path> files = Files.walk(root.resolve("io/github/cuckooguard/hibernate"))) {
      return files.filter(p -> p.toString().endsWith(".class")).toList();
    }
  }

  /**
   * Class names ({@code org/hibernate/X}) and members ({@code owner.name:descriptor}, a field's
   * descriptor prefixed by {@code F}) of Hibernate that one class file refers to.
   */
  private static Set<String> hibernateReferences(InputStream classFile) throws IOException {
    DataInputStream in = new DataInputStream(classFile);
    in.readInt(); // magic
    in.readInt(); // minor, major
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] tag = new int[count];
    int[] first = new int[count];
    int[] second = new int[count];
    for (int i = 1; i < count; i++) {
      tag[i] = in.readUnsignedByte();
      switch (tag[i]) {
        case 1 -> utf8[i] = in.readUTF();
        case 7, 8, 16, 19, 20 -> first[i] = in.readUnsignedShort();
        case 3, 4 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++;
        }
        case 9, 10, 11, 12, 17, 18 -> {
          first[i] = in.readUnsignedShort();
          second[i] = in.readUnsignedShort();
        }
        case 15 -> {
          in.readUnsignedByte();
          first[i] = in.readUnsignedShort();
        }
        default -> throw new IOException("unknown constant pool tag " + tag[i]);
      }
    }
    Set<String> found = new HashSet<>();
    for (int i = 1; i < count; i++) {
      if (tag[i] == 7 && utf8[first[i]].startsWith("org/hibernate/")) {
        found.add(utf8[first[i]]);
      } else if (tag[i] == 9 || tag[i] == 10 || tag[i] == 11) {
        String owner = utf8[first[first[i]]];
        if (owner.startsWith("org/hibernate/")) {
          int nameAndType = second[i];
          found.add(
              owner
                  + "."
                  + utf8[first[nameAndType]]
                  + ":"
                  + (tag[i] == 9 ? "F" : "")
                  + utf8[second[nameAndType]]);
        }
      }
    }
    return found;
  }

  private static boolean resolves(String reference) {
    int dot = reference.indexOf('.');
    String owner = dot < 0 ? reference : reference.substring(0, dot);
    Class<?> type;
    try {
      type =
          Class.forName(
              owner.replace('/', '.'), false, HibernateLinkageTest.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    if (dot < 0) {
      return true;
    }
    String member = reference.substring(dot + 1);
    String name = member.substring(0, member.indexOf(':'));
    String descriptor = member.substring(member.indexOf(':') + 1);
    if (descriptor.startsWith("F")) {
      return hierarchy(type).stream().anyMatch(c -> hasField(c, name, descriptor.substring(1)));
    }
    if (name.equals("<init>")) {
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        if (MethodType.methodType(void.class, constructor.getParameterTypes())
            .toMethodDescriptorString()
            .equals(descriptor)) {
          return true;
        }
      }
      return false;
    }
    return hierarchy(type).stream().anyMatch(c -> hasMethod(c, name, descriptor));
  }

  /** The class, its superclasses, then every superinterface. */
  private static List<Class<?>> hierarchy(Class<?> type) {
    List<Class<?>> order = new ArrayList<>();
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      order.add(c);
    }
    Deque<Class<?>> pending = new ArrayDeque<>(order);
    Set<Class<?>> seen = new HashSet<>(order);
    while (!pending.isEmpty()) {
      for (Class<?> parent : pending.pop().getInterfaces()) {
        if (seen.add(parent)) {
          order.add(parent);
          pending.add(parent);
        }
      }
    }
    return order;
  }

  private static boolean hasMethod(Class<?> c, String name, String descriptor) {
    for (Method method : c.getDeclaredMethods()) {
      if (method.getName().equals(name)
          && MethodType.methodType(method.getReturnType(), method.getParameterTypes())
              .toMethodDescriptorString()
              .equals(descriptor)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasField(Class<?> c, String name, String descriptor) {
    for (Field field : c.getDeclaredFields()) {
      if (field.getName().equals(name) && field.getType().descriptorString().equals(descriptor)) {
        return true;
      }
    }
    return false;
  }
}
