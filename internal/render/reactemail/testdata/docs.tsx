import { Html, Body, Container, Heading, Markdown, CodeBlock, dracula, Tailwind, Text } from "@react-email/components";

type Props = { title: string; notes: string; snippet: string };

// Markdown, a highlighted code block, and a code block inside Tailwind.
export default function Docs({ title, notes, snippet }: Props) {
  return (
    <Html>
      <Body>
        <Container>
          <Heading>{title}</Heading>
          <Markdown markdownCustomStyles={{ h2: { color: "#333" }, codeInline: { background: "#eee" } }}>{notes}</Markdown>
          <CodeBlock code={snippet} language="javascript" theme={dracula} lineNumbers />
          <Tailwind>
            <Text className="text-sm text-gray-600">Same snippet, inside Tailwind:</Text>
            <CodeBlock code={snippet} language="typescript" theme={dracula} />
          </Tailwind>
        </Container>
      </Body>
    </Html>
  );
}
