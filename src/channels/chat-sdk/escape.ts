/**
 * How text an agent or a caller wrote goes into a card on each platform (docs/channels.md): as words, never
 * as the platform's markup. A title, a summary, a question or a comment can hold `[text](url)`, a bare
 * address, `@everyone` or `<@id>`; on the platform they would be a live link or a ping. Each platform has
 * one `CardText` (its `ChatPlatform.cardText`), chosen from the renderings below by how its adapter renders.
 */
export interface CardText {
  /** A card's text element (a summary, a question, a comment). */
  text(text: string): string;
  /** A card's title, as the adapter renders titles (some escape part of the markup themselves). */
  title(text: string): string;
  /** Text shown as code (arguments as JSON): inert inside the platform's code block, where it has one. */
  code(text: string): string;
}

// A word joiner (U+2060, invisible) after `@` and inside `://` and `www.`: no platform reads a mention or
// an address across it, and a person reads the same words.
const JOIN = '\u2060';
/** No mention, no bare address that the platform (or its client) would turn into a ping or a link. */
export function withoutMentionsOrAddresses(text: string): string {
  return text
    .replace(/@/g, `@${JOIN}`)
    .replace(/:\/\//g, `:${JOIN}//`)
    .replace(/\b(www)\./gi, `$1${JOIN}.`);
}

// Every ASCII punctuation mark that is markup in CommonMark, GFM or Discord's markdown (`&` too: `&#64;`
// would be an `@`), escaped with a backslash, which renders as the mark itself.
const MARKDOWN = /[\\`*_{}[\]()<>#!|~&]/g;
const markdownText = (text: string) => withoutMentionsOrAddresses(text.replace(MARKDOWN, '\\$&'));
const fencedCode = (text: string) => text.replace(/```/g, "'''");

/** Markdown platforms: GitHub, Linear, Telegram (its adapter parses markdown), Discord; reminders everywhere. */
export const markdownCardText: CardText = {
  text: markdownText,
  title: markdownText,
  code: fencedCode,
};

/**
 * GitHub and Linear, whose adapters escape `\ * _ [ ]` in a title themselves but leave mentions and
 * addresses; Discord, whose card title is an embed's (no links there, and no mention in an embed pings).
 */
export const escapedTitleMarkdownCardText: CardText = {
  ...markdownCardText,
  title: withoutMentionsOrAddresses,
};

/** A markdown link broken between `]` and `(`, for renderers with no backslash escapes. */
const withoutLinks = (text: string) => text.replace(/\]\s*\(/g, `]${JOIN}(`);

/**
 * Teams' Adaptive Card text blocks: a markdown subset (links, emphasis, lists), no code blocks and no
 * backslash escapes; links broken, and `<` kept from starting a tag such as `<at>`.
 */
const adaptive = (text: string) => withoutMentionsOrAddresses(withoutLinks(text).replace(/</g, `<${JOIN}`));
export const adaptiveCardText: CardText = { text: adaptive, title: adaptive, code: adaptive };

const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Google Chat's text paragraphs: HTML-like formatting (`<a href>`, `<b>`); the header title is plain. */
export const googleChatCardText: CardText = {
  text: (text) => withoutMentionsOrAddresses(withoutLinks(html(text))),
  title: withoutMentionsOrAddresses,
  code: (text) => withoutMentionsOrAddresses(withoutLinks(html(text))),
};
