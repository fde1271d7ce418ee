/**
 * @module storage/migrations
 * The schema, as an append-only list: migration N brings `user_version` from N to N+1. Never edit a migration
 * that has shipped; add a new one.
 *
 * The migrations live under `migrations/`, in files of consecutive ranges (1–6, 7–13, 14–32, 33–34, 35, 36, 37, 38); this module joins
 * them in that order, which is all that matters: storage/database.ts applies the list by position.
 */
import { MIGRATIONS_01_06 } from "./migrations/01-06.ts";
import { MIGRATIONS_07_13 } from "./migrations/07-13.ts";
import { MIGRATIONS_14_32 } from "./migrations/14-32.ts";
import { MIGRATIONS_33_34 } from "./migrations/33-34.ts";
import { MIGRATIONS_35 } from "./migrations/35.ts";
import { MIGRATIONS_36 } from "./migrations/36.ts";
import { MIGRATIONS_37 } from "./migrations/37.ts";
import { MIGRATIONS_38 } from "./migrations/38.ts";

export const MIGRATIONS: readonly string[] = [...MIGRATIONS_01_06, ...MIGRATIONS_07_13, ...MIGRATIONS_14_32, ...MIGRATIONS_33_34, ...MIGRATIONS_35, ...MIGRATIONS_36, ...MIGRATIONS_37, ...MIGRATIONS_38];
