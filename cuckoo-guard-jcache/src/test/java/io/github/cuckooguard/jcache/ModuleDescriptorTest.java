package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The module descriptor this jar ships: it exports the API and no {@code internal} package, and
 * every module it requires is one that exists under that name. A failure here means a change to
 * {@code module-info.java} widened the API or named a dependency wrongly.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ModuleDescriptorTest {

  private static final String MODULE = "io.github.cuckooguard.jcache";

  /** The packages exported to every reader: the public API. */
  private static final Set<String> API = Set.of("io.github.cuckooguard.jcache");

  /** Implementation packages, which must exist and stay unexported (or exported only as below). */
  private static final Set<String> INTERNAL = Set.of("io.github.cuckooguard.jcache.internal");

  /** Qualified exports: package to the only modules that may read it. */
  private static final Map<String, Set<String>> QUALIFIED = Map.of();

  /** Opened packages: none, nothing reflects on this module's classes. */
  private static final Map<String, Set<String>> OPENS = Map.of();

  /** The descriptor compiled into target/classes, which the jar packages as it is. */
  private static ModuleDescriptor compiledDescriptor() {
    Path classes = Path.of("target", "classes");
    assertThat(classes.resolve("module-info.class")).isRegularFile();
    return ModuleFinder.of(classes).find(MODULE).orElseThrow().descriptor();
  }

  @Test
  void exportsTheApiToEveryReaderAndNoInternalPackage() {
    ModuleDescriptor descriptor = compiledDescriptor();

    assertThat(descriptor.isAutomatic()).isFalse();
    assertThat(descriptor.isOpen()).isFalse();
    Map<String, Set<String>> opened = new TreeMap<>();
    descriptor.opens().forEach(opens -> opened.put(opens.source(), opens.targets()));
    assertThat(opened).isEqualTo(OPENS);
    assertThat(descriptor.packages()).containsAll(API).containsAll(INTERNAL);
    assertThat(descriptor.exports())
        .filteredOn(exports -> !exports.isQualified())
        .extracting(Exports::source)
        .noneMatch(source -> source.contains(".internal"))
        .containsExactlyInAnyOrderElementsOf(API);
    Map<String, Set<String>> qualified = new TreeMap<>();
    descriptor.exports().stream()
        .filter(Exports::isQualified)
        .forEach(exports -> qualified.put(exports.source(), exports.targets()));
    assertThat(qualified).isEqualTo(QUALIFIED);
  }

  @Test
  void readersOfTheApiReadTheModulesItsSignaturesName() {
    assertThat(compiledDescriptor().requires())
        .filteredOn(requires -> requires.modifiers().contains(Requires.Modifier.TRANSITIVE))
        .extracting(Requires::name)
        .contains("io.github.cuckooguard.core", "cache.api");
  }

  /**
   * The descriptor resolves, in a layer of its own, against the jars of this test run's paths,
   * where the build puts each dependency (optional ones included): every {@code requires} names a
   * module that exists under that name, and in that layer the internal packages are hidden. A
   * misspelt or guessed automatic-module name compiles only when the jar is missing, and then fails
   * for users on the module path.
   */
  @Test
  void resolvesAgainstTheModulesItRequiresAndHidesItsInternals() {
    Map<String, Path> jars = new TreeMap<>();
    Map<String, ModuleDescriptor> descriptors = new TreeMap<>();
    for (String property : new String[] {"java.class.path", "jdk.module.path"}) {
      for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
        Path path = Path.of(entry);
        boolean jar = entry.endsWith(".jar") && Files.isRegularFile(path);
        if (jar || Files.isRegularFile(path.resolve("module-info.class"))) {
          try {
            for (ModuleReference found : ModuleFinder.of(path).findAll()) {
              if (jars.putIfAbsent(found.descriptor().name(), path) == null) {
                descriptors.put(found.descriptor().name(), found.descriptor());
              }
            }
          } catch (FindException notAModule) {
            // a jar without a valid module name is no module a descriptor can require
          }
        }
      }
    }
    ModuleDescriptor descriptor = compiledDescriptor();
    // this module's requires, optional ones included, then what those modules need at run time
    Set<String> roots = new TreeSet<>();
    descriptor.requires().forEach(requires -> roots.add(requires.name()));
    roots.removeIf(ModuleDescriptorTest::resolvedElsewhere);
    assertThat(jars.keySet()).containsAll(roots);
    Set<String> needed = new TreeSet<>();
    ArrayDeque<String> pending = new ArrayDeque<>(roots);
    while (!pending.isEmpty()) {
      String name = pending.poll();
      if (!resolvedElsewhere(name) && needed.add(name)) {
        assertThat(jars).containsKey(name);
        descriptors.get(name).requires().stream()
            .filter(requires -> !requires.modifiers().contains(Requires.Modifier.STATIC))
            .forEach(requires -> pending.add(requires.name()));
      }
    }
    List<Path> paths = new ArrayList<>(List.of(Path.of("target", "classes")));
    needed.forEach(name -> paths.add(jars.get(name)));
    roots.add(MODULE);

    ModuleLayer boot = ModuleLayer.boot();
    Configuration configuration =
        boot.configuration()
            .resolve(ModuleFinder.of(paths.toArray(Path[]::new)), ModuleFinder.ofSystem(), roots);
    ModuleLayer layer =
        boot.defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    Module module = layer.findModule(MODULE).orElseThrow();

    assertThat(module.getLayer()).isSameAs(layer);
    assertThat(API).allMatch(module::isExported);
    assertThat(INTERNAL).noneMatch(module::isExported).noneMatch(module::isOpen);
  }

  /**
   * A JDK module, or one this test JVM already runs with (on the module path, the build puts the
   * required jars there): the layer below reads it from the boot layer instead.
   */
  private static boolean resolvedElsewhere(String name) {
    return ModuleFinder.ofSystem().find(name).isPresent()
        || (!name.equals(MODULE) && ModuleLayer.boot().findModule(name).isPresent());
  }

  @Test
  void declaresTheServicesItLoadsAndProvides() throws Exception {
    ModuleDescriptor descriptor = compiledDescriptor();

    assertThat(descriptor.uses()).containsExactlyInAnyOrder("javax.cache.spi.CachingProvider");
    assertThat(descriptor.provides()).isEmpty();
  }
}
