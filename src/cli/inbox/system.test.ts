import { describe, expect, it } from 'vitest';
import { personsEditor } from './system.js';

// npm puts EDITOR=vi in the environment of everything it runs when the person set no editor: that must
// not count as their choice, or `e` opens vi instead of the in-place editor.
describe('the editor `e` opens', () => {
  const npm = {
    npm_lifecycle_event: 'npx',
    npm_command: 'exec',
    npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  };

  it('outside npm: VISUAL, else EDITOR, else none', () => {
    expect(personsEditor({ VISUAL: 'code --wait', EDITOR: 'nano' })).toBe('code --wait');
    expect(personsEditor({ EDITOR: 'nano' })).toBe('nano');
    expect(personsEditor({ EDITOR: 'vi' })).toBe('vi');
    expect(personsEditor({})).toBeUndefined();
    expect(personsEditor({ EDITOR: '  ', VISUAL: '' })).toBeUndefined();
  });

  it("under npm: npm's own default (vi, notepad.exe) is not the person's choice; anything else, or npm's editor setting, is", () => {
    expect(personsEditor({ ...npm, EDITOR: 'vi' })).toBeUndefined();
    expect(personsEditor({ ...npm, EDITOR: 'notepad.exe' })).toBeUndefined();
    expect(personsEditor({ ...npm, EDITOR: 'nano' })).toBe('nano');
    expect(personsEditor({ ...npm, EDITOR: 'vi', VISUAL: 'vi' })).toBe('vi');
    expect(personsEditor({ ...npm, EDITOR: 'vi', npm_config_editor: 'vi' })).toBe('vi');
    expect(personsEditor({ npm_command: 'run-script', EDITOR: 'vi' })).toBeUndefined();
  });
});
