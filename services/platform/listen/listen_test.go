package listen

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The child half of TestAChildServesOnTheSocketItsParentOpened: serve one line on the inherited
// address, then exit.
func TestMain(m *testing.M) {
	if addr := os.Getenv("LISTEN_TEST_CHILD_ADDR"); addr != "" {
		ln, err := TCP(addr)
		if err != nil {
			fmt.Println("child:", err)
			os.Exit(3)
		}
		conn, err := ln.Accept()
		if err != nil {
			os.Exit(4)
		}
		_, _ = conn.Write([]byte("served by the child\n"))
		_ = conn.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestAChildServesOnTheSocketItsParentOpened(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LISTEN_TEST_CHILD_ADDR="+addr)
	release, err := Hand(cmd, map[string]*net.TCPListener{addr: ln})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		release()
		t.Fatal(err)
	}
	release()
	// Nothing in this process listens any more: only the child can answer.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial the child: %v", err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	_ = conn.Close()
	if err != nil || line != "served by the child\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	// The child is gone, and with it the only copy of the socket: the port refuses.
	if c, err := net.Dial("tcp", addr); err == nil {
		_ = c.Close()
		t.Fatal("the port still accepts after its only server exited")
	}
}

func TestWithoutAnInheritedSocketTCPBinds(t *testing.T) {
	ln, err := TCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ln.Close()
}

func TestHandReplacesTheVariableOfAnEarlierStart(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	cmd.Env = []string{"A=1", EnvVar + "=127.0.0.1:1=3"}
	release, err := Hand(cmd, map[string]*net.TCPListener{ln.Addr().String(): ln})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var got []string
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, EnvVar+"=") {
			got = append(got, kv)
		}
	}
	if want := EnvVar + "=" + ln.Addr().String() + "=3"; len(got) != 1 || got[0] != want {
		t.Fatalf("env %v, want only %q", got, want)
	}
}

func TestParseSkipsWhatItCannotRead(t *testing.T) {
	got := parse("127.0.0.1:1=3,bad,=4,127.0.0.1:2=x,127.0.0.1:3=1,[::1]:5=7")
	if len(got) != 2 || got["127.0.0.1:1"] != 3 || got["[::1]:5"] != 7 {
		t.Fatalf("parse: %v", got)
	}
}
