/**
 * Types for the document parsers' embedded files (imported `with { type: "file" }`): WASM modules and OCR
 * language data. Bun embeds them in the compiled binary; the import evaluates to a readable path.
 */
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.traineddata.gz" {
  const path: string;
  export default path;
}
