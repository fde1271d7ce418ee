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
declare module "*/pyodide.mjs" {
  const path: string;
  export default path;
}
declare module "*/pyodide.asm.mjs" {
  const path: string;
  export default path;
}
declare module "*/python_stdlib.zip" {
  const path: string;
  export default path;
}
