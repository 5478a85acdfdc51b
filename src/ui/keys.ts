/**
 * Terminal input bytes to keys: printable text, control keys, the CSI/SS3 sequences of cursor and
 * editing keys (xterm, rxvt and kitty spellings), Shift-Enter where the terminal sends a distinct
 * sequence, and bracketed pastes (ESC[200~ … ESC[201~), which stay one key however they are split
 * across reads. A sequence this decoder does not know is dropped, never typed into the prompt.
 */

export type KeyName =
  | "enter"
  | "newline"
  | "tab"
  | "backspace"
  | "delete"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "escape"
  | "ctrl-a"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-e"
  | "ctrl-k"
  | "ctrl-l"
  | "ctrl-o"
  | "ctrl-u"
  | "ctrl-w"
  | "alt-backspace"
  | "alt-d";

export type Key =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "paste"; readonly text: string }
  | { readonly type: "key"; readonly name: KeyName };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const CONTROL: Readonly<Record<string, KeyName>> = {
  "\r": "enter",
  "\n": "newline",
  "\t": "tab",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x01": "ctrl-a",
  "\x02": "left",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x05": "ctrl-e",
  "\x06": "right",
  "\x0b": "ctrl-k",
  "\x0c": "ctrl-l",
  "\x0f": "ctrl-o",
  "\x0e": "down",
  "\x10": "up",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
};

/** Final sequences after ESC: CSI and SS3 spellings of the keys the editor knows. */
const SEQUENCES: Readonly<Record<string, KeyName>> = {
  "[A": "up",
  "[B": "down",
  "[C": "right",
  "[D": "left",
  "[H": "home",
  "[F": "end",
  OA: "up",
  OB: "down",
  OC: "right",
  OD: "left",
  OH: "home",
  OF: "end",
  "[1~": "home",
  "[7~": "home",
  "[4~": "end",
  "[8~": "end",
  "[3~": "delete",
  "[1;5C": "word-right",
  "[1;5D": "word-left",
  "[1;3C": "word-right",
  "[1;3D": "word-left",
  "[1;2A": "up",
  "[1;2B": "down",
  // Shift-Enter: kitty keyboard protocol, xterm modifyOtherKeys.
  "[13;2u": "newline",
  "[27;2;13~": "newline",
  b: "word-left",
  f: "word-right",
  d: "alt-d",
  "\r": "newline",
  "\x7f": "alt-backspace",
  "\b": "alt-backspace",
};

/** A CSI sequence: parameters and intermediates, then one final byte in @–~. */
const CSI = /^\[[0-?]*[ -/]*[@-~]/;
const SS3 = /^O./;

export class KeyDecoder {
  private pending = "";
  private paste: string | null = null;

  /** The keys in `chunk`; an unfinished paste or escape sequence waits for the next chunk. */
  feed(chunk: string): Key[] {
    const keys: Key[] = [];
    let rest = this.pending + chunk;
    this.pending = "";
    while (rest !== "") {
      if (this.paste !== null) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          const keep = partialSuffix(rest, PASTE_END);
          this.paste += rest.slice(0, rest.length - keep);
          this.pending = rest.slice(rest.length - keep);
          return keys;
        }
        keys.push({ type: "paste", text: normalisePaste(this.paste + rest.slice(0, end)) });
        this.paste = null;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      if (rest.startsWith(PASTE_START)) {
        this.paste = "";
        rest = rest.slice(PASTE_START.length);
        continue;
      }
      const consumed = this.one(rest, keys);
      if (consumed === 0) {
        this.pending = rest;
        return keys;
      }
      rest = rest.slice(consumed);
    }
    return keys;
  }

  /** Decodes one key at the start of `text`; 0 when it is an unfinished escape sequence. */
  private one(text: string, keys: Key[]): number {
    const first = text[0] ?? "";
    if (first === "\x1b") return this.escape(text, keys);
    const control = CONTROL[first];
    if (control !== undefined) {
      // CR LF from a terminal that sends both is one Enter.
      if (first === "\r" && text[1] === "\n") {
        keys.push({ type: "key", name: "enter" });
        return 2;
      }
      keys.push({ type: "key", name: control });
      return 1;
    }
    const code = first.charCodeAt(0);
    if (code < 0x20) return 1;
    let end = 1;
    while (end < text.length && !isControl(text.charCodeAt(end))) end += 1;
    keys.push({ type: "text", text: text.slice(0, end) });
    return end;
  }

  private escape(text: string, keys: Key[]): number {
    if (text.length === 1) {
      keys.push({ type: "key", name: "escape" });
      return 1;
    }
    const body = text.slice(1);
    const csi = CSI.exec(body) ?? SS3.exec(body);
    if (csi !== null) {
      const name = SEQUENCES[csi[0]];
      if (name !== undefined) keys.push({ type: "key", name });
      return 1 + csi[0].length;
    }
    if ((body[0] === "[" || body[0] === "O") && !/[@-~]/.test(body.slice(1)) && body.length < 16) return 0;
    const alt = SEQUENCES[body[0] ?? ""];
    if (alt !== undefined) keys.push({ type: "key", name: alt });
    else if (body[0] === "\x1b") keys.push({ type: "key", name: "escape" });
    return 2;
  }
}

function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f;
}

/** How many characters at the end of `text` are a proper prefix of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n -= 1) if (marker.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

/** Pasted line ends become `\n` (trailing ones dropped); other control characters (an ESC in pasted text) are dropped. */
function normalisePaste(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\t/g, "    ")
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, "")
    .replace(/\n+$/, "");
}
