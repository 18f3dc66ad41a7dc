// Reading SAML XML (IdP metadata, the parts of a Response that node-saml leaves unchecked) with
// xmldom, the parser node-saml itself uses. A document that is not well-formed, or that declares a
// DOCTYPE (entity expansion has no place in SAML), is refused rather than half-read.
import { DOMParser } from '@xmldom/xmldom';

export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

export class XmlError extends Error {}

export function parseXml(text: string): Element {
  if (/<!DOCTYPE/i.test(text)) throw new XmlError('XML with a DOCTYPE is not accepted');
  const problems: string[] = [];
  const record = (message: unknown) => {
    problems.push(String(message));
  };
  const doc = new DOMParser({
    errorHandler: { warning: record, error: record, fatalError: record },
  }).parseFromString(text, 'text/xml');
  const root = doc?.documentElement;
  if (problems.length > 0 || !root) throw new XmlError(`Malformed XML: ${problems[0] ?? 'no root element'}`);
  return root;
}

/** The element children of `parent` with this namespace and local name, in document order. */
export function children(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1) {
      const element = node as Element;
      if (element.namespaceURI === ns && element.localName === localName) found.push(element);
    }
  }
  return found;
}

export function child(parent: Element, ns: string, localName: string): Element | undefined {
  return children(parent, ns, localName)[0];
}

/** Every descendant with this namespace and local name. */
export function descendants(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(ns, localName));
}

export function textOf(element: Element | undefined): string | null {
  const text = element?.textContent?.trim();
  return text ? text : null;
}

export function attr(element: Element | undefined, name: string): string | null {
  return element?.hasAttribute(name) ? element.getAttribute(name) : null;
}
