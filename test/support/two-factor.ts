// Two-factor test helpers: TOTP (RFC 6238) written here from the RFC with node:crypto, independently
// of the library the service uses, and the world of a 2FA suite (an app, an organization, logins
// from fresh client addresses, a clock moved to fresh time steps, enrolment, the second login step).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Client, createTestApp, TEST_PASSWORD, type TestApp } from './app.ts';

export const AUTH = '/api/v1/auth';
export const STEP_MS = 30_000;

export function hotp(key: Buffer, counter: number, digits: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const totpAtSeconds = (key: Buffer, unixSeconds: number, digits: number) =>
  hotp(key, Math.floor(unixSeconds / 30), digits);

export function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.replace(/=+$/, '')) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export interface TwoFactorSuite {
  /** Set once the suite's beforeAll has run. */
  t: TestApp;
  owner: Client;
  orgId: string;
  /** A POST from its own client address, so that per-IP login limits never get in the way. */
  post(
    url: string,
    payload: object,
  ): Promise<{
    status: number;
    // biome-ignore lint/suspicious/noExplicitAny: the JSON body of any route
    body: any;
    setCookie: string | string[] | undefined;
    cookies: Record<string, string>;
  }>;
  stepNow(): number;
  code(key: Buffer, step?: number): string;
  /** Six-digit codes that match no step near now. */
  wrongCodes(key: Buffer): string[];
  /**
   * Moves the app's clock `steps` time steps ahead, to 1 s past a step boundary: every step used so
   * far is then in the past, and the test has about 29 s before the step changes under it.
   */
  toFreshStep(steps?: number): number;
  enroll(c: Client): Promise<{ secret: string; key: Buffer; recovery: string[] }>;
  /** The first step: the partial token of a password login of a user with 2FA. */
  partialToken(email: string): Promise<string>;
  secondStep(partialToken: string, code: string): ReturnType<TwoFactorSuite['post']>;
  auditOf(
    userId: string,
    action: string,
  ): Promise<{ target_id: string; actor_id: string; outcome: string; details: object }[]>;
}

export function twoFactorSuite(orgName: string): TwoFactorSuite {
  const suite = {} as TwoFactorSuite;
  let ipCounter = 0;
  const nextIp = () => `10.77.${Math.floor(ipCounter / 250)}.${(ipCounter++ % 250) + 1}`;
  suite.post = async (url, payload) => {
    const response = await suite.t.app.inject({ method: 'POST', url, payload, remoteAddress: nextIp() });
    return {
      status: response.statusCode,
      body: response.body ? JSON.parse(response.body) : undefined,
      setCookie: response.headers['set-cookie'],
      cookies: Object.fromEntries(response.cookies.map((c) => [c.name, c.value])),
    };
  };
  suite.stepNow = () => Math.floor(suite.t.now().getTime() / STEP_MS);
  suite.code = (key, step = suite.stepNow()) => hotp(key, step, 6);
  suite.wrongCodes = (key) => {
    const near = new Set([-2, -1, 0, 1, 2].map((d) => suite.code(key, suite.stepNow() + d)));
    return ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777'].filter(
      (c) => !near.has(c),
    );
  };
  suite.toFreshStep = (steps = 3) => {
    const ms = suite.t.now().getTime();
    suite.t.advance((Math.floor(ms / STEP_MS) + steps) * STEP_MS + 1_000 - ms);
    return suite.stepNow();
  };
  suite.enroll = async (c) => {
    const setup = await c.post(`${AUTH}/2fa/setup`);
    expect(setup.status).toBe(200);
    const key = base32Decode(setup.body.secret);
    const enable = await c.post(`${AUTH}/2fa/enable`, { code: suite.code(key) });
    expect(enable.status).toBe(200);
    suite.toFreshStep();
    return { secret: setup.body.secret as string, key, recovery: enable.body.recovery_codes as string[] };
  };
  suite.partialToken = async (email) => {
    const response = await suite.post(`${AUTH}/login`, { email, password: TEST_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.body.needs_2fa).toBe(true);
    return response.body.partial_token;
  };
  suite.secondStep = (partial_token, code) => suite.post(`${AUTH}/login/2fa`, { partial_token, code });
  suite.auditOf = async (userId, action) => {
    const response = await suite.owner.get(`/api/v1/audit?action=${action}&page_size=200`);
    expect(response.status).toBe(200);
    return (
      response.body.items as { target_id: string; actor_id: string; outcome: string; details: object }[]
    )
      .filter((e) => e.target_id === userId || e.actor_id === userId)
      .reverse();
  };
  beforeAll(async () => {
    suite.t = await createTestApp();
    ({ orgId: suite.orgId, owner: suite.owner } = await suite.t.createOrg(orgName));
  });
  afterAll(() => suite.t.close());
  return suite;
}
