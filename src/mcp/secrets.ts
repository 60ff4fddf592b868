/**
 * MCP forbids asking for sensitive information in a form (a server must send the person to a page
 * instead), so a form whose field looks like a secret is refused before anyone sees it.
 */

/** Whole words that name a secret: `api_key`, `apiKey`, `API key`, `pin`, `otp`… */
const SECRET_WORDS = new Set([
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'tokens',
  'key',
  'keys',
  'apikey',
  'credential',
  'credentials',
  'otp',
  'totp',
  'pin',
  'cvv',
  'cvc',
  'ssn',
]);

/** Pieces that name a secret even inside one run-together word (`userpassword`, `clientsecret`). */
const SECRET_PIECES = [
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'accesstoken',
  'authtoken',
  'refreshtoken',
  'clientsecret',
  'secretkey',
  'privatekey',
  'credential',
];

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** True when a field's name or title reads like a password, token, key or other secret. */
export function looksSecret(text: string): boolean {
  const parts = words(text);
  if (parts.some((word) => SECRET_WORDS.has(word))) return true;
  const joined = parts.join('');
  return SECRET_PIECES.some((piece) => joined.includes(piece));
}

/** The fields of a form whose name or title looks like a secret, by name. */
export function secretFields(properties: Record<string, Record<string, unknown>>): string[] {
  return Object.entries(properties)
    .filter(([name, field]) => looksSecret(name) || (typeof field.title === 'string' && looksSecret(field.title)))
    .map(([name]) => name);
}
