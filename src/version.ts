/**
 * @module version
 * The crawlbox version, taken from package.json at build time so the binary and the source always agree.
 */
import pkg from "../package.json" with { type: "json" };

/** Semantic version of this build. */
export const VERSION: string = pkg.version;
