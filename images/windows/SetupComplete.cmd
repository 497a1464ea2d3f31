@echo off
rem SetupComplete.cmd for a kiln image: Windows setup runs this (as LocalSystem) once setup has finished.
rem The service is installed with a demand start so it cannot run before sysprep's specialize pass;
rem here it is handed over: automatic start from now on, and started for this first boot.
rem Install to C:\Windows\Setup\Scripts\SetupComplete.cmd
sc.exe config cloudbase-init start= auto
net.exe start cloudbase-init
exit /b 0
