package io.github.cuckooguard.cluster.hazelcast.testing;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hazelcast members for the multi-process tests of this module and of cuckoo-guard-jcache (shared
 * through this module's test-jar): a loopback-only member configuration, the command line of a
 * member JVM started with the test's own class path, and the signals a test sends to it ({@code
 * kill -9}, {@code SIGSTOP}, {@code SIGCONT}).
 */
public final class MemberJvms {

  /** Flags of every member JVM: the opens Hazelcast 5 wants on Java 17, IPv4, a small heap. */
  public static final List<String> JVM_FLAGS =
      List.of(
          "--add-modules",
          "java.se",
          "--add-exports",
          "java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens",
          "java.base/java.lang=ALL-UNNAMED",
          "--add-opens",
          "java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens",
          "java.management/sun.management=ALL-UNNAMED",
          "--add-opens",
          "jdk.management/com.sun.management.internal=ALL-UNNAMED",
          "-Djava.net.preferIPv4Stack=true",
          "-Xmx256m");

  private MemberJvms() {}

  /**
   * A member of {@code cluster} bound to 127.0.0.1 on the first free port of {@code basePort} ..
   * {@code basePort + ports - 1}, joining by TCP-IP the members on those ports only; multicast,
   * auto-detection, phone-home and Hazelcast's logging off.
   */
  public static Config loopbackConfig(String cluster, int basePort, int ports) {
    Config config = new Config().setClusterName(cluster);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(basePort).setPortAutoIncrement(true).setPortCount(ports);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    for (int p = basePort; p < basePort + ports; p++) {
      join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + p);
    }
    return config;
  }

  /**
   * The command that runs {@code main} in a new JVM with {@link #JVM_FLAGS}, C1 only (quicker to
   * start on a busy machine) and this JVM's class path, then {@code args}.
   */
  public static List<String> javaCommand(Class<?> main, String... args) {
    return javaCommand(System.getProperty("java.class.path"), main, args);
  }

  /**
   * As {@link #javaCommand(Class, String...)}, with {@code classPath} as the new JVM's class path:
   * for a test that runs on the module path (cuckoo-guard-spring), whose member JVMs run its module
   * path and class path together on the class path.
   */
  public static List<String> javaCommand(String classPath, Class<?> main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_FLAGS);
    command.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp", classPath, main.getName()));
    command.addAll(List.of(args));
    return command;
  }

  /** Kills {@code process} with {@code kill -9} and waits until it is gone (10 s at most). */
  public static void kill9(Process process) throws IOException, InterruptedException {
    signal(process, "-9");
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("process " + process.pid() + " still alive 10 s after kill -9");
    }
  }

  /**
   * Sends {@code signal} ({@code -9}, {@code -STOP}, {@code -CONT}) to {@code process} with {@code
   * kill}.
   *
   * @throws AssertionError if {@code kill} did not succeed within 10 s
   */
  public static void signal(Process process, String signal)
      throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill " + signal + " " + process.pid() + " failed");
    }
  }
}
