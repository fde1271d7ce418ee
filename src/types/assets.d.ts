/**
 * Types for files imported `with { type: "file" }`: Bun embeds them in the compiled binary and the import
 * evaluates to a path readable with `Bun.file` (stack-notes.md, "the single binary").
 */
declare module "*.css" {
  const path: string;
  export default path;
}
declare module "*/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
