import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalText } from './terminal-text.js';

const ESC = '\u001B';
const BEL = '\u0007';

describe('terminalText: what the terminal inbox may print', () => {
  it('drops whole escape sequences and keeps the words around them', () => {
    expect(terminalText(`${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL} here`)).toBe('click here');
    expect(terminalText(`a${ESC}]0;pwned${BEL}b`)).toBe('ab');
    expect(terminalText(`a${ESC}]52;c;aGk=${ESC}\\b`)).toBe('ab');
    expect(terminalText(`a${ESC}[2Jb${ESC}[1;31mc${ESC}[0m`)).toBe('abc');
    expect(terminalText(`a${ESC}Pq#0;2;0;0;0${ESC}\\b${ESC}_apc${BEL}c`)).toBe('abc');
    expect(terminalText(`a\u009B2Jb\u009D0;pwned\u009Cc`)).toBe('abc');
    expect(terminalText(`a${ESC}7b${ESC}(Bc`)).toBe('abc');
    expect(terminalText(`unterminated ${ESC}]0;title to the end`)).toBe('unterminated ');
  });

  it('drops C0 (but newline and tab), DEL and C1; keeps other text as it is', () => {
    expect(terminalText('a\u0000b\u0008c\rd\u007Fe\u0085f\u0084g')).toBe('abcdefg');
    expect(terminalText('line one\r\nline two\n\tindented')).toBe('line one\nline two\n\tindented');
    expect(terminalText('Refund €5 — ok? 日本 🙂')).toBe('Refund €5 — ok? 日本 🙂');
  });

  it('reaches every string of an answer, keys included', () => {
    expect(
      terminalSafe({ title: `x${ESC}]0;t${BEL}`, n: 1, args: { [`k${ESC}[2J`]: [`v${BEL}`, null, true] } }),
    ).toEqual({ title: 'x', n: 1, args: { k: ['v', null, true] } });
  });
});
