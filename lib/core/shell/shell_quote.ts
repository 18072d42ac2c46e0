// One word for a POSIX shell command line, as the hints that suggest shell calls print it.
// Pure: no I/O.

/**
 * `text` as one shell word: bare when it holds only plain path characters, else single-quoted.
 * A `~` stays bare only inside a word or as a leading `~/` (the home directory, which is what a
 * path shown as `~/x` means); any other leading `~` (`~bob`) would expand to someone's home.
 */
export function shellQuote(text: string): string {
  const plain = /^[\w@%+=:,./~-]+$/.test(text) &&
    (!text.startsWith("~") || text === "~" || text.startsWith("~/"));
  return plain ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
