import {
  Body, Button, Container, Head, Heading, Hr, Html, Img, Link, Preview, Section, Text,
} from "@react-email/components";

interface WelcomeProps {
  name?: string;
  company: string;
  trialDays: number;
  loginUrl: string;
}

const main = { backgroundColor: "#f6f9fc", fontFamily: "Helvetica, Arial, sans-serif" };
const box = { padding: "0 48px" };

// A welcome email: the layout components, props with a default, a conditional.
export default function Welcome({ name = "there", company, trialDays, loginUrl }: WelcomeProps) {
  return (
    <Html lang="en">
      <Head />
      <Preview>Welcome to {company}, {name}!</Preview>
      <Body style={main}>
        <Container style={{ margin: "0 auto", padding: "20px 0 48px" }}>
          <Section style={box}>
            <Img src="https://cdn.example.com/logo.png" width="120" height="36" alt={company} />
            <Heading as="h1">Hello {name} &amp; welcome</Heading>
            <Text>Thanks for joining {company}. Your account is ready.</Text>
            {trialDays > 0 ? (
              <Text style={{ color: "#525f7f" }}>Your trial lasts {trialDays} days.</Text>
            ) : (
              <Text>Your plan is active.</Text>
            )}
            <Button href={loginUrl} style={{ backgroundColor: "#656ee8", color: "#fff", padding: "10px 20px" }}>
              Log in
            </Button>
            <Hr />
            <Text>
              Questions? <Link href="mailto:help@example.com">help@example.com</Link>
            </Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}
