package io.github.cuckooguard.contract;

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
 * The checks every library module's descriptor passes: it exports its API and no {@code internal}
 * package, and every module it requires is one that exists under that name. An adapter's {@code
 * ModuleDescriptorTest} extends this with its module's expectations and adds its own checks
 * (services, the module its tests run in). A failure means a change to {@code module-info.java}
 * widened the API or named a dependency wrongly.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class ModuleDescriptorContract {

  private final String module;
  private final Set<String> api;
  private final Set<String> internal;
  private final Map<String, Set<String>> qualified;
  private final Map<String, Set<String>> opens;
  private final Set<String> transitive;

  /**
   * @param module the module's name
   * @param api the packages exported to every reader
   * @param internal implementation packages, which must exist and stay unexported (or exported only
   *     as {@code qualified} says)
   * @param qualified qualified exports: package to the only modules that may read it
   * @param opens opened packages: package to the modules that may reflect on it
   * @param transitive modules the API's signatures name, required {@code transitive}
   */
  protected ModuleDescriptorContract(
      String module,
      Set<String> api,
      Set<String> internal,
      Map<String, Set<String>> qualified,
      Map<String, Set<String>> opens,
      Set<String> transitive) {
    this.module = module;
    this.api = api;
    this.internal = internal;
    this.qualified = qualified;
    this.opens = opens;
    this.transitive = transitive;
  }

  /** The descriptor compiled into target/classes, which the jar packages as it is. */
  protected final ModuleDescriptor compiledDescriptor() {
    Path classes = Path.of("target", "classes");
    assertThat(classes.resolve("module-info.class")).isRegularFile();
    return ModuleFinder.of(classes).find(module).orElseThrow().descriptor();
  }

  /** For modules whose tests run on the module path: the descriptor is the one they run in. */
  protected final void assertTestsRunInsideTheModule(Class<?> apiClass) {
    Module named = apiClass.getModule();

    assertThat(named.getName()).isEqualTo(module);
    assertThat(api).allMatch(named::isExported);
    assertThat(internal).noneMatch(named::isExported);
  }

  @Test
  void exportsTheApiToEveryReaderAndNoInternalPackage() {
    ModuleDescriptor descriptor = compiledDescriptor();

    assertThat(descriptor.isAutomatic()).isFalse();
    assertThat(descriptor.isOpen()).isFalse();
    Map<String, Set<String>> opened = new TreeMap<>();
    descriptor.opens().forEach(o -> opened.put(o.source(), o.targets()));
    assertThat(opened).isEqualTo(opens);
    assertThat(descriptor.packages()).containsAll(api).containsAll(internal);
    assertThat(descriptor.exports())
        .filteredOn(exports -> !exports.isQualified())
        .extracting(Exports::source)
        .noneMatch(source -> source.contains(".internal"))
        .containsExactlyInAnyOrderElementsOf(api);
    Map<String, Set<String>> exportedTo = new TreeMap<>();
    descriptor.exports().stream()
        .filter(Exports::isQualified)
        .forEach(exports -> exportedTo.put(exports.source(), exports.targets()));
    assertThat(exportedTo).isEqualTo(qualified);
  }

  @Test
  void readersOfTheApiReadTheModulesItsSignaturesName() {
    assertThat(compiledDescriptor().requires())
        .filteredOn(requires -> requires.modifiers().contains(Requires.Modifier.TRANSITIVE))
        .extracting(Requires::name)
        .containsAll(transitive);
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
    roots.removeIf(this::resolvedElsewhere);
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
    roots.add(module);

    ModuleLayer boot = ModuleLayer.boot();
    Configuration configuration =
        boot.configuration()
            .resolve(ModuleFinder.of(paths.toArray(Path[]::new)), ModuleFinder.ofSystem(), roots);
    ModuleLayer layer =
        boot.defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    Module loaded = layer.findModule(module).orElseThrow();

    assertThat(loaded.getLayer()).isSameAs(layer);
    assertThat(api).allMatch(loaded::isExported);
    assertThat(internal).noneMatch(loaded::isExported).noneMatch(loaded::isOpen);
  }

  /**
   * A JDK module, or one this test JVM already runs with (on the module path, the build puts the
   * required jars there): the layer reads it from the boot layer instead.
   */
  private boolean resolvedElsewhere(String name) {
    return ModuleFinder.ofSystem().find(name).isPresent()
        || (!name.equals(module) && ModuleLayer.boot().findModule(name).isPresent());
  }
}
