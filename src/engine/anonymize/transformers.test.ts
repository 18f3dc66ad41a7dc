import { describe, expect, it } from 'vitest';
import { ibanValid, luhnValid } from './checksums.ts';
import { columnShape } from './column-type.ts';
import { compileTransformer, type ValueTransformer } from './compile.ts';
import { FAKE_KINDS } from './fake.ts';
import type { TransformerSpec } from './rules.ts';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);

/** Distinct, varied inputs: the property checks run over these. */
function inputs(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `person-${i}-${(i * 2654435761) % 1000003}@corp.example`);
}

function compile(spec: TransformerSpec, type = 'text', key = KEY, nullable = true): ValueTransformer {
  return compileTransformer(spec, columnShape(type, nullable), key);
}

const KEYED: [string, TransformerSpec, string][] = [
  ['hash', { transformer: 'hash' }, 'text'],
  ['scramble', { transformer: 'scramble' }, 'text'],
  ['choice', { transformer: 'choice', options: { values: ['a', 'b', 'c', 'd', 'e', 'f'] } }, 'text'],
  ...FAKE_KINDS.map((kind): [string, TransformerSpec, string] => [
    `fake ${kind}`,
    { transformer: 'fake', options: { kind } },
    'text',
  ]),
];

describe('deterministic transformers', () => {
  it.each(KEYED)(
    '%s: same key and input give the same output; another key gives another',
    (_name, spec, type) => {
      const a = compile(spec, type);
      const again = compile(spec, type);
      const other = compile(spec, type, OTHER_KEY);
      let differs = 0;
      for (const input of inputs(200)) {
        expect(a(input)).toEqual(again(input));
        if (a(input) !== other(input)) differs++;
      }
      expect(differs).toBeGreaterThan(150);
    },
  );

  it.each(KEYED.filter(([name]) => name === 'hash' || name.startsWith('fake')))(
    '%s: a text given as its UTF-8 bytes gets what the text gets',
    (_name, spec, type) => {
      const transform = compile(spec, type);
      const utf8 = transform.utf8;
      expect(utf8).toBeDefined();
      for (const input of [...inputs(50), 'Zoë Ångström', '東京 😀', '']) {
        const data = Buffer.from(`1\t${input}\t2`);
        expect(utf8?.(data, 2, data.length - 2)).toEqual(transform(input));
      }
    },
  );

  it('the purpose label is made of kind and options, so two kinds on one input differ, and option order does not matter', () => {
    const email = compile({ transformer: 'fake', options: { kind: 'email' } });
    const withLocale = compile({
      transformer: 'fake',
      options: { locale: 'en', kind: 'email', unique: true },
    });
    const name = compile({ transformer: 'fake', options: { kind: 'full_name' } });
    expect(email('x')).toBe(withLocale('x'));
    expect(String(email('x'))).not.toContain(String(name('x')).split(' ')[0]?.toLowerCase() ?? '#');
    expect(compile({ transformer: 'hash', options: { length: 10 } })('x')).not.toBe(
      String(compile({ transformer: 'hash' })('x')).slice(0, 10),
    );
  });

  it('random mode gives other outputs on each call', () => {
    const random = compile({ transformer: 'hash', options: { deterministic: false } });
    expect(random('x')).not.toBe(random('x'));
  });

  it('equal values of different driver types (number and decimal string of a bigint key) get one replacement', () => {
    const hash = compile({ transformer: 'hash' });
    expect(hash(42)).toBe(hash('42'));
    expect(hash(42n)).toBe(hash(42));
  });
});

describe('uniqueness and checksums', () => {
  it('e-mails stay distinct for distinct inputs, on example.net', () => {
    const email = compile({ transformer: 'fake', options: { kind: 'email' } }, 'character varying(255)');
    const out = inputs(20_000).map((v) => email(v) as string);
    expect(new Set(out).size).toBe(out.length);
    for (const e of out.slice(0, 500)) expect(e).toMatch(/^[a-z.]*[a-z2-7]{13}@example\.net$/);
  });

  it('a short e-mail column gets the tag alone, still distinct', () => {
    const email = compile({ transformer: 'fake', options: { kind: 'email' } }, 'varchar(25)');
    const out = inputs(5_000).map((v) => email(v) as string);
    expect(new Set(out).size).toBe(out.length);
    for (const e of out) expect(e.length).toBeLessThanOrEqual(25);
  });

  it('uuids and 16+ hex hashes stay distinct', () => {
    for (const spec of [
      { transformer: 'fake', options: { kind: 'uuid' } },
      { transformer: 'hash', options: { length: 16 } },
    ]) {
      const t = compile(spec);
      const out = inputs(20_000).map((v) => t(v));
      expect(new Set(out).size).toBe(out.length);
    }
    expect(compile({ transformer: 'fake', options: { kind: 'uuid' } })('a')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('card numbers pass Luhn and IBANs their check digits, in several locales', () => {
    const card = compile({ transformer: 'fake', options: { kind: 'credit_card' } });
    for (const locale of ['en', 'de', 'es', 'fr', 'pl']) {
      const iban = compile({ transformer: 'fake', options: { kind: 'iban', locale } });
      for (const input of inputs(300)) {
        expect(ibanValid(iban(input) as string), `${locale}: ${iban(input)}`).toBe(true);
      }
    }
    for (const input of inputs(1000)) expect(luhnValid(card(input) as string)).toBe(true);
    expect(compile({ transformer: 'fake', options: { kind: 'iban', locale: 'de' } })('x')).toMatch(
      /^DE\d{20}$/,
    );
  });
});

describe('lengths and types', () => {
  it.each(['varchar(3)', 'character varying(8)', 'char(5)'])('every text transformer fits %s', (type) => {
    const max = Number(/\((\d+)\)/.exec(type)?.[1]);
    const specs: TransformerSpec[] = [
      { transformer: 'hash' },
      { transformer: 'scramble' },
      { transformer: 'mask' },
      { transformer: 'redact' },
      { transformer: 'fake', options: { kind: 'full_name' } },
      { transformer: 'fake', options: { kind: 'street_address', locale: 'de' } },
      { transformer: 'fake', options: { kind: 'company' } },
    ];
    for (const spec of specs) {
      const t = compile(spec, type);
      for (const input of ['ab', 'abcdefgh', 'zoë@example.com x']) {
        const out = t(input.slice(0, max)) as string;
        expect(Array.from(out).length, `${spec.transformer}`).toBeLessThanOrEqual(max);
      }
    }
  });

  it('nulls stay null by default; keep_null: false generates a value', () => {
    expect(compile({ transformer: 'fake', options: { kind: 'city' } })(null)).toBeNull();
    expect(compile({ transformer: 'fake', options: { kind: 'city', keep_null: false } })(null)).toEqual(
      expect.any(String),
    );
    expect(compile({ transformer: 'mask', options: { keep_null: false } })(null)).toBeNull();
  });

  it('integer noise keeps the representation and the column bounds', () => {
    const noise = compile({ transformer: 'noise', options: { ratio: 0.5 } }, 'smallint');
    for (let i = 1; i < 300; i++) {
      const out = noise(32_000 - i) as number;
      expect(Number.isInteger(out)).toBe(true);
      expect(out).toBeLessThanOrEqual(32_767);
      expect(Math.abs(out - (32_000 - i))).toBeLessThanOrEqual(16_000);
    }
    const big = compile({ transformer: 'noise', options: { ratio: 0.1 } }, 'bigint');
    expect(big('1000000')).toEqual(expect.stringMatching(/^\d+$/));
    expect(typeof big(5n)).toBe('bigint');
  });

  it('numeric noise writes the column scale and stays within its digits', () => {
    const noise = compile({ transformer: 'noise', options: { ratio: 1 } }, 'numeric(5,2)');
    for (let i = 0; i < 200; i++) {
      const out = noise(`${900 + i}.50`) as string;
      expect(out).toMatch(/^-?\d{1,3}\.\d{2}$/);
      expect(Math.abs(Number(out))).toBeLessThanOrEqual(999.99);
    }
  });

  it('range and generalize on numbers and dates', () => {
    const range = compile({ transformer: 'range', options: { min: 18, max: 65 } }, 'integer');
    const seen = new Set<number>();
    for (const input of inputs(500)) {
      const out = range(input.length) as number;
      seen.add(range(input) as number);
      expect(out).toBeGreaterThanOrEqual(18);
      expect(out).toBeLessThanOrEqual(65);
    }
    expect(seen.size).toBeGreaterThan(30);
    expect(compile({ transformer: 'generalize', options: { step: 10 } }, 'int')(47)).toBe(40);
    expect(compile({ transformer: 'generalize', options: { step: 10 } }, 'int')(-1)).toBe(-10);
    expect(compile({ transformer: 'generalize', options: { unit: 'month' } }, 'date')('1987-06-23')).toBe(
      '1987-06-01',
    );
    expect(
      compile(
        { transformer: 'generalize', options: { unit: 'year' } },
        'timestamp with time zone',
      )(new Date('1987-06-23T10:00:00Z')),
    ).toEqual(new Date('1987-01-01T00:00:00Z'));
    const dates = compile(
      { transformer: 'range', options: { min: '2000-01-01', max: '2000-12-31' } },
      'date',
    );
    for (const input of inputs(200)) expect(dates(input)).toMatch(/^2000-\d{2}-\d{2}$/);
  });

  it('date noise moves whole days within the bound; timestamps keep their text form', () => {
    const noise = compile({ transformer: 'noise', options: { days: 30 } }, 'date');
    for (const input of ['2020-03-01', '2021-12-31', '1999-01-15']) {
      const out = noise(input) as string;
      expect(out).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Math.abs(Date.parse(out) - Date.parse(input)) / 86_400_000).toBeLessThanOrEqual(30);
    }
    const ts = compile({ transformer: 'noise', options: { days: 2 } }, 'datetime');
    expect(ts('2020-03-01 10:11:12')).toMatch(/^2020-0[23]-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});

describe('text transformers', () => {
  it('mask keeps the ends asked for and masks a value too short whole', () => {
    expect(compile({ transformer: 'mask' })('4111111111111111')).toBe('************1111');
    expect(
      compile({ transformer: 'mask', options: { keep_start: 2, keep_end: 0, char: '#' } })('Zoë Dupont'),
    ).toBe('Zo########');
    expect(compile({ transformer: 'mask' })('abc')).toBe('***');
  });

  it('scramble keeps the format: letters, digits, case and punctuation', () => {
    const scramble = compile({ transformer: 'scramble' });
    for (const input of ['AB-12 cd/Éx', '+49 (0)151 234-5678', 'Jean-Luc Picard']) {
      const out = scramble(input) as string;
      expect(out.length).toBe(input.length);
      for (let i = 0; i < input.length; i++) {
        const [a, b] = [input[i] as string, out[i] as string];
        if (/\d/.test(a)) expect(b).toMatch(/\d/);
        else if (/\p{Lu}/u.test(a)) expect(b).toMatch(/[A-Z]/);
        else if (/\p{Ll}/u.test(a)) expect(b).toMatch(/[a-z]/);
        else expect(b).toBe(a);
      }
    }
    expect(scramble('Jean-Luc Picard')).not.toBe('Jean-Luc Picard');
  });

  it('redact replaces e-mails, phones, cards and IBANs in free text and leaves the rest', () => {
    const redact = compile({ transformer: 'redact' });
    const text =
      'Call Zoë on +49 151 2345 6789 or mail zoe.d@example.org; card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00. Order 12345 on 2024-05-01.';
    expect(redact(text)).toBe(
      'Call Zoë on [phone] or mail [email]; card [card], IBAN [iban]. Order 12345 on 2024-05-01.',
    );
    expect(redact('invoice 4111 1111 1111 1112')).toBe('invoice 4111 1111 1111 1112');
  });
});

describe('json', () => {
  it('applies transformers at paths and leaves the rest; keeps the representation', () => {
    const json = compile(
      {
        transformer: 'json',
        options: {
          paths: {
            '$.email': { transformer: 'fake', options: { kind: 'email' } },
            '$.cards[*].number': { transformer: 'mask' },
            "$['home address'].zip": { transformer: 'constant', options: { value: '00000' } },
            '$.age': { transformer: 'generalize', options: { step: 10 } },
          },
        },
      },
      'jsonb',
    );
    const doc = {
      email: 'a@b.org',
      cards: [{ number: '4111111111111111', kind: 'visa' }, { number: '5500000000000004' }],
      'home address': { zip: '75001', city: 'Paris' },
      age: 37,
      other: 'kept',
    };
    const out = json(doc) as typeof doc;
    expect(out.email).toMatch(/@example\.net$/);
    expect(out.cards).toEqual([{ number: '************1111', kind: 'visa' }, { number: '************0004' }]);
    expect(out['home address']).toEqual({ zip: '00000', city: 'Paris' });
    expect(out.age).toBe(30);
    expect(out.other).toBe('kept');
    expect(doc.email).toBe('a@b.org');
    const asText = json(JSON.stringify(doc)) as string;
    expect(JSON.parse(asText).email).toBe(out.email);
    expect(json('not json')).toBeNull();
  });
});
