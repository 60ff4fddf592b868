import { describe, expect, it } from 'vitest';
import { linkTarget } from '../link-target.js';
import { adaptiveCardText, googleChatCardText, markdownCardText } from './escape.js';

describe('card text: words, never markup', () => {
  it('markdown: punctuation escaped, mentions and addresses broken by an invisible joiner', () => {
    expect(markdownCardText.text('[a](https://x.example) @ada &#64;b')).toBe(
      '\\[a\\]\\(https:\u2060//x.example\\) @\u2060ada \\&\\#64;b',
    );
    expect(markdownCardText.code('```json')).toBe("'''json");
  });

  it('Teams and Google Chat: links, tags and addresses broken, HTML escaped where it is markup', () => {
    expect(adaptiveCardText.text('[a](u) <at>x</at>')).toBe('[a]\u2060(u) <\u2060at>x<\u2060/at>');
    expect(googleChatCardText.text('<a href="https://x.example">b</a>')).toBe(
      '&lt;a href="https:\u2060//x.example"&gt;b&lt;/a&gt;',
    );
  });

  it('a link target keeps the address and cannot end early', () => {
    expect(linkTarget('https://x.example/a|b> c)[d]')).toBe('https://x.example/a%7Cb%3E%20c%29%5Bd%5D');
  });
});
