package io.github.cuckooguard.guard;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every callback. */
class RecordingListener implements RebuildListener {
  final List<String> starts = new CopyOnWriteArrayList<>();
  final List<Long> progress = new CopyOnWriteArrayList<>();
  final List<GuardStats> finishes = new CopyOnWriteArrayList<>();
  final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @Override
  public void onStart(String reason) {
    starts.add(reason);
  }

  @Override
  public void onProgress(long keysScanned) {
    progress.add(keysScanned);
  }

  @Override
  public void onFinish(GuardStats stats) {
    finishes.add(stats);
  }

  @Override
  public void onFailure(Throwable cause) {
    failures.add(cause);
  }
}
