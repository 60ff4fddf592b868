/**
 * An address for a link's target (a button's `url`, markdown's `(url)`): parsed and written back with the
 * characters that could end the target or start markup (`( ) [ ] < > |`, spaces, quotes) percent-encoded.
 */
export function linkTarget(url: string): string {
  return new URL(url).href.replace(
    /[()[\]<>|"' ]/g,
    (mark) => `%${mark.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
