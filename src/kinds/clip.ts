/** `text` cut to at most `max` characters, ending in `ellipsis` when cut: a huge input must not make a huge message. */
export function clip(text: string, max = 300, ellipsis = '...'): string {
  return text.length > max ? `${text.slice(0, max - ellipsis.length)}${ellipsis}` : text;
}
