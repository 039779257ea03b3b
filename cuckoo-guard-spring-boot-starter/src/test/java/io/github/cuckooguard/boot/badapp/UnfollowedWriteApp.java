package io.github.cuckooguard.boot.badapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Boot application whose guarded repository has write paths the guard does not follow. */
@SpringBootApplication
public class UnfollowedWriteApp {}
