// The faker methods a seed generator may call (docs/contract.md §9.1), declared as data: each allowed data module
// of the library and its generating methods, nothing else (no constructor, no `helpers`, no
// module's internals), and the bounds every call's `args` must keep so that one value stays cheap:
// JSON only; strings ≤ 1,000 characters, numbers ≤ 10^9 in size, lengths and counts ≤ 10,000, at
// most 10 arguments. User text names a method only through these lists (own-property look-ups), so
// no name reaches a prototype. Pure.

// Looked up with Object.hasOwn only: a module name such as `constructor` or `__proto__` is not one.
export const FAKER_METHODS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  person: [
    'bio',
    'firstName',
    'fullName',
    'gender',
    'jobArea',
    'jobDescriptor',
    'jobTitle',
    'jobType',
    'lastName',
    'middleName',
    'prefix',
    'sex',
    'sexType',
    'suffix',
    'zodiacSign',
  ],
  internet: [
    'displayName',
    'domainName',
    'domainSuffix',
    'domainWord',
    'email',
    'emoji',
    'exampleEmail',
    'httpMethod',
    'httpStatusCode',
    'ip',
    'ipv4',
    'ipv6',
    'jwt',
    'jwtAlgorithm',
    'mac',
    'password',
    'port',
    'protocol',
    'url',
    'userAgent',
    'username',
  ],
  location: [
    'buildingNumber',
    'cardinalDirection',
    'city',
    'continent',
    'country',
    'countryCode',
    'county',
    'direction',
    'language',
    'latitude',
    'longitude',
    'nearbyGPSCoordinate',
    'ordinalDirection',
    'postalAddress',
    'secondaryAddress',
    'state',
    'street',
    'streetAddress',
    'timeZone',
    'zipCode',
  ],
  company: [
    'buzzAdjective',
    'buzzNoun',
    'buzzPhrase',
    'buzzVerb',
    'catchPhrase',
    'catchPhraseAdjective',
    'catchPhraseDescriptor',
    'catchPhraseNoun',
    'name',
  ],
  commerce: [
    'department',
    'isbn',
    'price',
    'product',
    'productAdjective',
    'productDescription',
    'productMaterial',
    'productName',
    'upc',
  ],
  finance: [
    'accountName',
    'accountNumber',
    'amount',
    'bic',
    'bitcoinAddress',
    'creditCardCVV',
    'creditCardIssuer',
    'creditCardNumber',
    'currency',
    'currencyCode',
    'currencyName',
    'currencyNumericCode',
    'currencySymbol',
    'ethereumAddress',
    'iban',
    'litecoinAddress',
    'pin',
    'routingNumber',
    'transactionDescription',
    'transactionType',
  ],
  date: [
    'anytime',
    'between',
    'betweens',
    'birthdate',
    'future',
    'month',
    'past',
    'recent',
    'soon',
    'timeZone',
    'weekday',
  ],
  lorem: ['lines', 'paragraph', 'paragraphs', 'sentence', 'sentences', 'slug', 'text', 'word', 'words'],
  phone: ['imei', 'number'],
  string: [
    'alpha',
    'alphanumeric',
    'binary',
    'fromCharacters',
    'hexadecimal',
    'nanoid',
    'numeric',
    'octal',
    'sample',
    'symbol',
    'ulid',
    'uuid',
  ],
  number: ['bigInt', 'binary', 'float', 'hex', 'int', 'octal', 'romanNumeral'],
  datatype: ['boolean'],
  word: [
    'adjective',
    'adverb',
    'conjunction',
    'interjection',
    'noun',
    'preposition',
    'sample',
    'verb',
    'words',
  ],
  color: [
    'cmyk',
    'colorByCSSColorSpace',
    'cssSupportedFunction',
    'cssSupportedSpace',
    'hsl',
    'human',
    'hwb',
    'lab',
    'lch',
    'rgb',
    'space',
  ],
  vehicle: ['bicycle', 'color', 'fuel', 'manufacturer', 'model', 'type', 'vehicle', 'vin', 'vrm'],
  music: ['album', 'artist', 'genre', 'songName'],
  animal: [
    'bear',
    'bird',
    'cat',
    'cetacean',
    'cow',
    'crocodilia',
    'dog',
    'fish',
    'horse',
    'insect',
    'lion',
    'petName',
    'rabbit',
    'rodent',
    'snake',
    'type',
  ],
  science: ['chemicalElement', 'unit'],
  food: [
    'adjective',
    'description',
    'dish',
    'ethnicCategory',
    'fruit',
    'ingredient',
    'meat',
    'spice',
    'vegetable',
  ],
  book: ['author', 'format', 'genre', 'publisher', 'series', 'title'],
  airline: ['aircraftType', 'airline', 'airplane', 'airport', 'flightNumber', 'recordLocator', 'seat'],
  hacker: ['abbreviation', 'adjective', 'ingverb', 'noun', 'phrase', 'verb'],
  system: [
    'commonFileExt',
    'commonFileName',
    'commonFileType',
    'cron',
    'directoryPath',
    'fileExt',
    'fileName',
    'filePath',
    'fileType',
    'mimeType',
    'networkInterface',
    'semver',
  ],
  image: ['avatar', 'avatarGitHub', 'dataUri', 'personPortrait', 'url', 'urlLoremFlickr', 'urlPicsumPhotos'],
  database: ['collation', 'column', 'engine', 'mongodbObjectId', 'type'],
  git: ['branch', 'commitDate', 'commitEntry', 'commitMessage', 'commitSha'],
});

/** Modules whose positional number arguments are lengths or counts (`string.alpha(5)`, `lorem.words(3)`). */
const SIZED_BY_POSITION = new Set(['string', 'lorem', 'word', 'finance']);

/** Option names that are lengths or counts (a number, or `{min, max}` of numbers). */
const SIZE_OPTION = /^(length|count|[a-z]+Count)$/;

export const FAKER_ARG_BOUNDS = {
  args: 10,
  string: 1000,
  number: 1e9,
  size: 10_000,
  /** Entries of an array or object argument, and how deep they nest. */
  entries: 100,
  depth: 4,
} as const;

/** `module.method` split, when both are on the allow-list; null otherwise. */
export function allowedFakerMethod(path: string): { module: string; method: string } | null {
  const parts = path.split('.');
  if (parts.length !== 2) return null;
  const [module, method] = parts as [string, string];
  if (!Object.hasOwn(FAKER_METHODS, module)) return null;
  return (FAKER_METHODS[module] as readonly string[]).includes(method) ? { module, method } : null;
}

/** Why `args` break the bounds (a sentence), or null when they keep them. */
export function fakerArgsProblem(module: string, args: readonly unknown[]): string | null {
  const b = FAKER_ARG_BOUNDS;
  if (args.length > b.args) return `args takes at most ${b.args} arguments`;
  const check = (value: unknown, where: string, depth: number, size: boolean): string | null => {
    if (value === null || typeof value === 'boolean') return null;
    if (typeof value === 'string')
      return value.length > b.string
        ? `${where} is longer than ${b.string.toLocaleString('en')} characters`
        : null;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${where} is not a finite number`;
      const most = size ? b.size : b.number;
      return Math.abs(value) > most
        ? `${where} is ${size ? 'a length or count' : 'a number'} beyond ${most.toLocaleString('en')}`
        : null;
    }
    if (typeof value !== 'object') return `${where} is not JSON`;
    if (depth >= b.depth) return `${where} nests deeper than ${b.depth} levels`;
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    if (entries.length > b.entries) return `${where} has more than ${b.entries} entries`;
    for (const [key, inner] of entries) {
      const sized = size || (!Array.isArray(value) && SIZE_OPTION.test(key));
      const problem = check(inner, `${where}.${key}`, depth + 1, sized);
      if (problem) return problem;
    }
    return null;
  };
  for (const [i, arg] of args.entries()) {
    const problem = check(arg, `args[${i}]`, 0, typeof arg === 'number' && SIZED_BY_POSITION.has(module));
    if (problem) return problem;
  }
  return null;
}
