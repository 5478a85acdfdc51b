/** Where the UI writes: stdout (`out`) and stderr (`err`); tests capture both. */
export interface TextOutput {
  out(text: string): void;
  err(text: string): void;
}
