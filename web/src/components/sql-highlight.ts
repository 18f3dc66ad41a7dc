// Syntax colours for SQL that keep a contrast of at least 4.5:1 on white (the default style of
// CodeMirror has some that fail WCAG AA, which the axe checks of the browser tests catch).
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';

export const sqlHighlighting = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.keyword, color: '#6f1d8c', fontWeight: '600' },
    { tag: [tags.string, tags.special(tags.string)], color: '#a31515' },
    { tag: [tags.number, tags.bool, tags.null], color: '#0f6b3a' },
    { tag: [tags.comment, tags.lineComment, tags.blockComment], color: '#50596b', fontStyle: 'italic' },
    { tag: [tags.typeName, tags.standard(tags.name)], color: '#0b4f8a' },
    { tag: [tags.name, tags.special(tags.name), tags.propertyName, tags.variableName], color: '#1d2330' },
    { tag: [tags.operator, tags.punctuation, tags.bracket], color: '#3a4357' },
  ]),
);
