/**
 * The one escape for config text shown to a person: hook commands, run paths,
 * labels, setting keys and values, file names and load-warning lines. A `\r`, an ESC sequence, a
 * backspace or a bidi override could make a review show a harmless command while another one runs,
 * so every C0 and C1 control character, DEL, and the invisible or direction-changing format
 * characters become visible escapes. Printable text (backslashes included) is left as written.
 */

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F), zero-width and joiner characters, line/paragraph
 * separators, bidi embeddings/overrides/isolates, word joiners and invisible operators, and the BOM.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

function hex(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every unsafe character replaced by a visible escape (`\r`, `\x1b`, `\x08`, `\u202e`, …). */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => NAMED[ch] ?? hex(ch.codePointAt(0) ?? 0));
}

/**
 * JSON text for a terminal: JSON.stringify already escapes C0, but not DEL, C1 or the format
 * characters; this escapes those too as `\uXXXX`, so the text still parses to the same value.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}
