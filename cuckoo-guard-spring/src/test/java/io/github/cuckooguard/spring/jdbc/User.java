package io.github.cuckooguard.spring.jdbc;

/** A row of the users table. */
public record User(long id, String name) {}
