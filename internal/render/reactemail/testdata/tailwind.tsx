import { Html, Head, Body, Container, Heading, Text, Button, Section, Hr, Tailwind, pixelBasedPreset } from "@react-email/components";

type Props = { name: string; items: { label: string; done: boolean }[] };

// Tailwind classes, a custom theme colour, responsive and hover variants.
export default function Checklist({ name, items }: Props) {
  return (
    <Html>
      <Tailwind config={{ presets: [pixelBasedPreset], theme: { extend: { colors: { brand: "#007291" } } } }}>
        <Head />
        <Body className="bg-white font-sans">
          <Container className="mx-auto my-10 max-w-[465px] rounded border border-solid border-gray-200 p-5">
            <Heading className="text-2xl font-bold text-brand sm:text-3xl">Hi {name}</Heading>
            <Section>
              {items.map((item) => (
                <Text key={item.label} className={item.done ? "text-green-600 line-through" : "text-gray-800"}>
                  {item.label}
                </Text>
              ))}
            </Section>
            <Hr className="my-4 border-gray-300" />
            <Button href="https://app.example.com" className="rounded bg-brand px-5 py-3 text-white hover:bg-black">
              Open the app
            </Button>
          </Container>
        </Body>
      </Tailwind>
    </Html>
  );
}
