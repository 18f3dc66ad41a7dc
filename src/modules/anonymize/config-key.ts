// The key of a config's deterministic transformers: generated when the caller gives none, sealed by
// the service's secret box with a purpose bound to the config (a sealed key cannot be moved to
// another config), never returned. Its id is a keyed fingerprint that approvals bind, so replacing
// the key voids them, and that says nothing of the key.
import { createHmac, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../security/secret-box.ts';

const purpose = (configId: string) => `anonymize_config_key:${configId}`;

/** 32 random bytes, written as base64url text (how a given key is stored too: its UTF-8 bytes are the key). */
export function generateKey(): string {
  return randomBytes(32).toString('base64url');
}

export function sealKey(box: SecretBox, configId: string, key: string): string {
  return box.seal(key, purpose(configId));
}

/** The key's bytes, for compiling the transformers. */
export function openKey(box: SecretBox, configId: string, sealed: string): Buffer {
  return Buffer.from(box.open(sealed, purpose(configId)), 'utf8');
}

export function keyId(key: string): string {
  return createHmac('sha256', key).update('dbops anonymize key id').digest('hex').slice(0, 32);
}
