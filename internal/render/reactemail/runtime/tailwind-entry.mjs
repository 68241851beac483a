// React Email's Tailwind component with Tailwind CSS 4, which Carteiro
// embeds and loads into an engine only when a template imports Tailwind
// (it takes about 0.4 s to start). bundle.go turns this file into
// tailwind.js, a CommonJS module whose imports of React and the components
// are the runtime's own objects: Tailwind recognises components by
// identity.
export { Tailwind, pixelBasedPreset } from "@react-email/tailwind";
